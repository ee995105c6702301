/*
 * errhandler.c: the application's error handlers see MPI_COMM_WORLD.
 *
 * MPICH calls a communicator's error handler with the communicator the
 * error was raised on. What the application calls MPI_COMM_WORLD is the
 * user world (csp_ip_world), another handle, so without this file a
 * handler set on MPI_COMM_WORLD would be called with a communicator that
 * is not MPI_COMM_WORLD, and one that tests `*comm == MPI_COMM_WORLD` (or
 * keys anything on the handle) would not recognize it.
 *
 * MPI_Comm_create_errhandler and the deprecated MPI_Errhandler_create
 * therefore register a trampoline in place of the application's function:
 * one per distinct function, each bound to a slot, which calls the
 * function with MPI_COMM_WORLD in place of the user world and with every
 * other communicator unchanged. The function gets a pointer to a copy of
 * the handle (MPICH passes a pointer into its own communicator object).
 * MPI_Comm_get_errhandler returns the handle MPI_Comm_create_errhandler
 * returned, as before.
 *
 * Fortran: MPICH's MPI_COMM_CREATE_ERRHANDLER calls the C
 * MPI_Comm_create_errhandler with the Fortran subroutine, which MPICH then
 * calls like a C handler; MPICH's MPI_Comm is an int like MPI_Fint, so the
 * trampoline serves both.
 *
 * C++: MPICH's C++ binding (libmpichcxx) creates a handler with the C
 * MPI_Comm_create_errhandler, then marks it with
 * MPII_Errhandler_set_cxx(errhandler, dispatch): MPICH then calls
 * dispatch(kind, &handle, &code, fn) with the function registered, and
 * dispatch calls fn with an MPI::Comm object made from the handle. The
 * function registered is a trampoline, which takes a C handle, so the
 * interposer's MPII_Errhandler_set_cxx installs eh_cxx_call in MPICH's
 * place: it turns the trampoline back into the application's function and
 * the user world into MPI_COMM_WORLD, then calls MPICH's dispatch (cxx/errhan/commcallx of
 * MPICH's tests crashed).
 *
 * A program has a handful of handler functions. Slots are never reused;
 * past CSP_IP_EH_SLOTS distinct functions the application's function is
 * registered unchanged (it then sees the user world's handle).
 */
#define _GNU_SOURCE
#include "interpose.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#define CSP_IP_EH_SLOTS 16

static MPI_Comm_errhandler_function *eh_fn[CSP_IP_EH_SLOTS];
static pthread_mutex_t eh_mu = PTHREAD_MUTEX_INITIALIZER;

/* The communicator the application's handler is given for c. */
static MPI_Comm eh_seen(MPI_Comm c)
{
    return c == csp_ip_world && c != MPI_COMM_WORLD ? MPI_COMM_WORLD : c;
}

static void eh_call(int slot, MPI_Comm *comm, int *code)
{
    MPI_Comm_errhandler_function *fn = __atomic_load_n(&eh_fn[slot], __ATOMIC_ACQUIRE);
    MPI_Comm c = eh_seen(comm ? *comm : MPI_COMM_NULL);
    fn(&c, code);
}

#define EH_TRAMPOLINE(i)                                                                           \
    static void eh_tramp##i(MPI_Comm *comm, int *code, ...) { eh_call(i, comm, code); }
EH_TRAMPOLINE(0)
EH_TRAMPOLINE(1)
EH_TRAMPOLINE(2)
EH_TRAMPOLINE(3)
EH_TRAMPOLINE(4)
EH_TRAMPOLINE(5)
EH_TRAMPOLINE(6)
EH_TRAMPOLINE(7)
EH_TRAMPOLINE(8)
EH_TRAMPOLINE(9)
EH_TRAMPOLINE(10)
EH_TRAMPOLINE(11)
EH_TRAMPOLINE(12)
EH_TRAMPOLINE(13)
EH_TRAMPOLINE(14)
EH_TRAMPOLINE(15)

static MPI_Comm_errhandler_function *const eh_tramp[CSP_IP_EH_SLOTS] = {
    eh_tramp0,  eh_tramp1,  eh_tramp2,  eh_tramp3,  eh_tramp4,  eh_tramp5,
    eh_tramp6,  eh_tramp7,  eh_tramp8,  eh_tramp9,  eh_tramp10, eh_tramp11,
    eh_tramp12, eh_tramp13, eh_tramp14, eh_tramp15,
};

/* The trampoline calling fn (taking a free slot for a new fn), or fn itself
 * when the slots are used up. */
static MPI_Comm_errhandler_function *eh_wrap(MPI_Comm_errhandler_function *fn)
{
    if (fn == NULL)
        return fn; /* MPI reports the error */
    MPI_Comm_errhandler_function *out = fn;
    pthread_mutex_lock(&eh_mu);
    for (int i = 0; i < CSP_IP_EH_SLOTS; i++) {
        MPI_Comm_errhandler_function *f = __atomic_load_n(&eh_fn[i], __ATOMIC_RELAXED);
        if (f == fn || f == NULL) {
            if (f == NULL)
                __atomic_store_n(&eh_fn[i], fn, __ATOMIC_RELEASE);
            out = eh_tramp[i];
            break;
        }
    }
    pthread_mutex_unlock(&eh_mu);
    return out;
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_create_errhandler(eh_wrap(fn), errhandler);
}

int MPI_Errhandler_create(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return PMPI_Errhandler_create(eh_wrap(fn), errhandler);
}

/* ---- C++ handlers (see the top of this file) ---- */

/* MPICH's dispatch to C++ handlers (MPIR_Process.cxx_call_errfn); kind is
 * 0 for a communicator, 1 a file, 2 a window. */
typedef void csp_cxx_dispatch(int kind, int *handle, int *code, void (*fn)(void));
static csp_cxx_dispatch *cxx_dispatch;

static void eh_cxx_call(int kind, int *handle, int *code, void (*fn)(void))
{
    int h = *handle;
    if (kind == 0) {
        for (int i = 0; i < CSP_IP_EH_SLOTS; i++)
            if ((void (*)(void))eh_tramp[i] == fn) {
                fn = (void (*)(void))__atomic_load_n(&eh_fn[i], __ATOMIC_ACQUIRE);
                break;
            }
        h = (int)eh_seen((MPI_Comm)h);
    }
    __atomic_load_n(&cxx_dispatch, __ATOMIC_ACQUIRE)(kind, &h, code, fn);
}

void MPII_Errhandler_set_cxx(MPI_Errhandler errhandler, void (*dispatch)(void))
{
    static void (*mpich)(MPI_Errhandler, void (*)(void));
    if (!mpich)
        mpich = (void (*)(MPI_Errhandler, void (*)(void)))dlsym(RTLD_NEXT, "MPII_Errhandler_set_cxx");
    if (!mpich)
        return;
    __atomic_store_n(&cxx_dispatch, (csp_cxx_dispatch *)dispatch, __ATOMIC_RELEASE);
    mpich(errhandler, (void (*)(void))eh_cxx_call);
}
