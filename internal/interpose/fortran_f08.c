/*
 * fortran_f08.c: MPICH's mpi_f08 bindings reach the wrappers.
 *
 * MPICH's `use mpi_f08` bindings (libmpichfort.so.12, MPICH 4.0.2) call
 * the C library in two ways: those with a choice buffer go through
 * internal helpers that call the C MPI_* functions (mpi_send_f08ts_ ->
 * MPI_Send), which the interposer already defines; the rest call PMPI_*
 * directly (mpi_init_f08_ -> PMPI_Init, mpi_comm_rank_f08_ ->
 * PMPI_Comm_rank, mpi_wait_f08_ -> PMPI_Wait: 269 functions). A program
 * that initialized through mpi_f08 thus never reached MPI_Init here and ran
 * as plain MPI with the ghosts as ranks of its own; one that initialized
 * through `use mpi` and called mpi_f08 elsewhere saw MPICH's world, ghosts
 * included, in those calls.
 *
 * Each such call is made through the calling object's procedure linkage
 * table, from a slot of its global offset table that the dynamic linker
 * fills. At load, before any of the program's code runs, csp_f08_bind
 * writes into every slot of MPICH's Fortran library that names PMPI_X,
 * where this library defines MPI_X, the address of MPI_X: the mpi_f08
 * bindings then call the wrappers exactly as the C and `use mpi` bindings
 * do, with the same C arguments (each binding has already converted its
 * Fortran ones: MPI_STATUS_IGNORE, LOGICALs, strings). A PMPI_X this
 * library does not wrap keeps MPICH's. Nothing else is touched: the
 * wrappers' own calls to PMPI_* resolve in this library's table, not in
 * MPICH's Fortran library's, and every caller of PMPI_* in that library
 * is an mpi_f08 binding or its profiling twin (pmpir_*_f08_; objdump).
 * LLNL's GOTCHA wraps functions of HPC libraries the same way.
 *
 * Invariants the writer relies on, checked per object: the relocations
 * are RELA (x86-64, AArch64), a slot lies inside one of the object's
 * writable or RELRO segments (a RELRO page is made writable for the write
 * and read-only again), and a slot is written before its first call (lazy
 * binding writes the resolved address only from the PLT's first call,
 * which then finds ours; with eager binding the linker has already written
 * MPICH's, which ours replaces). `CSP_VERBOSE=2` prints how many slots were
 * bound.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "interpose.h"

#if defined(__x86_64__)
#define CSP_R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define CSP_R_GLOB_DAT R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define CSP_R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define CSP_R_GLOB_DAT R_AARCH64_GLOB_DAT
#endif

/* How many slots csp_f08_bind wrote (CSP_VERBOSE=2 prints it). */
CSP_IP_HIDDEN int csp_f08_nbound;

#ifdef CSP_R_JUMP_SLOT

/* Is this loaded object MPICH's Fortran library (Debian's libmpichfort,
 * upstream's libmpifort)? */
static int is_mpich_fortran(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, "libmpichfort.so", 15) == 0 || strncmp(base, "libmpifort.so", 13) == 0;
}

/* A dynamic-section address: glibc relocates most of them in place by the
 * load base, some ports do not. */
static uintptr_t dyn_addr(const struct dl_phdr_info *info, ElfW(Addr) a)
{
    return a < info->dlpi_addr ? info->dlpi_addr + a : a;
}

/* The segment of info holding [addr, addr + 8): 1 writable, 2 RELRO
 * (read-only once relocated), 0 none. */
static int slot_segment(const struct dl_phdr_info *info, uintptr_t addr)
{
    int kind = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (addr < lo || addr + sizeof(void *) > hi)
            continue;
        if (ph->p_type == PT_GNU_RELRO)
            return 2;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W))
            kind = 1;
    }
    return kind;
}

/* This library's MPI_X for "PMPI_X", or NULL where MPI_X is MPICH's (or
 * nobody's). */
static void *our_wrapper(const char *pmpi_name)
{
    static Dl_info self;
    if (!self.dli_fbase && !dladdr((void *)&our_wrapper, &self))
        return NULL;
    void *f = dlsym(RTLD_DEFAULT, pmpi_name + 1);
    Dl_info where;
    if (!f || !dladdr(f, &where) || where.dli_fbase != self.dli_fbase)
        return NULL;
    return f;
}

static int write_slot(const struct dl_phdr_info *info, uintptr_t slot, void *f)
{
    switch (slot_segment(info, slot)) {
    case 1:
        __atomic_store_n((void **)slot, f, __ATOMIC_RELEASE);
        return 1;
    case 2: {
        long pg = sysconf(_SC_PAGESIZE);
        void *page = (void *)(slot & ~(uintptr_t)(pg - 1));
        if (mprotect(page, (size_t)pg, PROT_READ | PROT_WRITE) != 0)
            return 0;
        __atomic_store_n((void **)slot, f, __ATOMIC_RELEASE);
        mprotect(page, (size_t)pg, PROT_READ);
        return 1;
    }
    }
    return 0;
}

/* Binds the slots of one table of relocations. */
static int bind_table(const struct dl_phdr_info *info, const ElfW(Rela) * rel, size_t n,
                      const ElfW(Sym) * symtab, const char *strtab)
{
    int bound = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned type = ELF64_R_TYPE(rel[i].r_info);
        if (type != CSP_R_JUMP_SLOT && type != CSP_R_GLOB_DAT)
            continue;
        const char *name = strtab + symtab[ELF64_R_SYM(rel[i].r_info)].st_name;
        if (strncmp(name, "PMPI_", 5) != 0)
            continue;
        void *f = our_wrapper(name);
        if (f && write_slot(info, info->dlpi_addr + rel[i].r_offset, f))
            bound++;
    }
    return bound;
}

static int bind_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    if (!info->dlpi_name || !is_mpich_fortran(info->dlpi_name))
        return 0;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (!dyn)
        return 0;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const ElfW(Rela) *jmprel = NULL, *rela = NULL;
    size_t jmpsz = 0, relasz = 0;
    int pltrela = 0;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        switch (dyn->d_tag) {
        case DT_SYMTAB: symtab = (const ElfW(Sym) *)dyn_addr(info, dyn->d_un.d_ptr); break;
        case DT_STRTAB: strtab = (const char *)dyn_addr(info, dyn->d_un.d_ptr); break;
        case DT_JMPREL: jmprel = (const ElfW(Rela) *)dyn_addr(info, dyn->d_un.d_ptr); break;
        case DT_PLTRELSZ: jmpsz = dyn->d_un.d_val; break;
        case DT_PLTREL: pltrela = dyn->d_un.d_val == DT_RELA; break;
        case DT_RELA: rela = (const ElfW(Rela) *)dyn_addr(info, dyn->d_un.d_ptr); break;
        case DT_RELASZ: relasz = dyn->d_un.d_val; break;
        }
    }
    if (!symtab || !strtab)
        return 0;
    int bound = 0;
    if (jmprel && pltrela)
        bound += bind_table(info, jmprel, jmpsz / sizeof(ElfW(Rela)), symtab, strtab);
    if (rela)
        bound += bind_table(info, rela, relasz / sizeof(ElfW(Rela)), symtab, strtab);
    csp_f08_nbound += bound;
    return 0;
}

/* Runs when the library is loaded (preloaded, or linked before MPICH),
 * after the objects the program was linked with are mapped and before its
 * main: a program's first MPI call, its MPI_Init included, finds the
 * slots bound. A libmpichfort the program opens later with dlopen is not
 * bound. */
__attribute__((constructor)) static void csp_f08_bind(void)
{
    dl_iterate_phdr(bind_object, NULL);
}

#endif /* CSP_R_JUMP_SLOT */
