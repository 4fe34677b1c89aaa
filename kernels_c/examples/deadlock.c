/*
 * deadlock.c -- a classic mistake, kept on purpose for the "running on a cluster" page:
 * both ranks call a blocking MPI_Recv first, so neither ever reaches its MPI_Send.
 * It shows what commbook does with a job that hangs: the call times out, the MPI processes
 * are killed, and the error says so. Never use it as a benchmark.
 */
#include "commbench.h"

static const cb_optspec CB_OPTIONS[] = {{NULL, NULL, NULL}};

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    if (cb_parse(ctx, "deadlock", CB_OPTIONS)) return CB_BAD_OPTIONS;
    int value = ctx->rank, got = -1;
    int peer = (ctx->rank + 1) % ctx->size;
    if (ctx->size > 1) {
        MPI_Recv(&got, 1, MPI_INT, peer, 0, comm, MPI_STATUS_IGNORE); /* waits forever */
        MPI_Send(&value, 1, MPI_INT, peer, 0, comm);
    }
    cb_printf(ctx, "# result: ok\n");
    return CB_OK;
}
