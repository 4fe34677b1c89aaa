/*
 * gather_solution.c -- reference solution of gather_skeleton.c (hidden from the student
 * edition). Same algorithm as cc_gather_binomial in kernels_c/collectives_algos.h.
 */
#include "exercise_harness.h"

static void my_gather(const char *sendbuf, char *recvbuf, int n, int root, MPI_Comm comm)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    int v = (rank - root + P) % P;
    char *held = malloc((size_t)P * (size_t)(n > 0 ? n : 1));
    if (n) memcpy(held, sendbuf, (size_t)n);
    int have = 1;
    for (int mask = 1; mask < P; mask <<= 1) {
        if (v & mask) {
            MPI_Send(held, have * n, MPI_CHAR, (v - mask + root) % P, 0, comm);
            break;
        }
        if (v + mask < P) {
            int blocks = mask < P - (v + mask) ? mask : P - (v + mask);
            MPI_Recv(held + (size_t)have * (size_t)n, blocks * n, MPI_CHAR,
                     (v + mask + root) % P, 0, comm, MPI_STATUS_IGNORE);
            have += blocks;
        }
    }
    if (v == 0 && n)
        for (int b = 0; b < P; b++)
            memcpy(recvbuf + (size_t)((b + root) % P) * (size_t)n, held + (size_t)b * (size_t)n,
                   (size_t)n);
    free(held);
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    return ex_gather_main(ctx, "gather_exercise", my_gather);
}
