/*
 * ip_bind: where the runtime placed this user process.
 *
 *   ip_bind
 *
 * Output: "result rank=<user rank> test=bind cpus=<list>", the CPUs every
 * thread of the process may run on (Cpus_allowed_list of each
 * /proc/self/task/<tid>/status; "mixed" if the threads disagree).
 */
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int allowed(const char *status, char *out, size_t n)
{
    FILE *f = fopen(status, "r");
    if (!f)
        return 0;
    char line[512];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
            if (sscanf(line + 18, " %255s", out) == 1 && n > 255)
                found = 1;
            break;
        }
    }
    fclose(f);
    return found;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char first[256] = "", cur[256], path[300];
    int threads = 0, same = 1;
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
        if (!allowed(path, cur, sizeof cur))
            continue;
        if (threads++ == 0)
            strcpy(first, cur);
        else if (strcmp(first, cur) != 0)
            same = 0;
    }
    if (d)
        closedir(d);
    printf("result rank=%d test=bind threads=%d cpus=%s\n", rank, threads, same ? first : "mixed");
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
