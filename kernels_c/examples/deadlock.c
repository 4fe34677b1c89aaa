/*
 * deadlock.c -- classic mistakes, kept on purpose: every rank sends to its right-hand
 * neighbour and receives from its left-hand one, all with blocking calls, in the wrong order.
 *
 *   --order recv-first (default)  every rank calls MPI_Recv first: nobody ever reaches its
 *                                 MPI_Send, so it hangs for any size (the "running on a
 *                                 cluster" page: a hung job is timed out and killed);
 *   --order send-first            every rank calls MPI_Send first: a message up to the MPI
 *                                 library's eager limit is copied out and MPI_Send returns, so
 *                                 it works; above the limit MPI_Send waits for the matching
 *                                 receive (rendezvous), which nobody has posted: it hangs
 *                                 (the ping-pong chapter's protocols section).
 *
 * Whether send-first hangs is decided by the library's protocol, not by the MPI standard, which
 * allows MPI_Send to block for any size: correct programs use MPI_Sendrecv or nonblocking calls.
 * Never use it as a benchmark.
 */
#include "commbench.h"

static const cb_optspec CB_OPTIONS[] = {
    {"order", "recv-first", "recv-first (hangs always) or send-first (hangs above the eager limit)"},
    {"size", "4", "bytes every rank sends to its right-hand neighbour (K/M suffixes)"},
    {"watchdog", "0", "seconds a rank may wait in the exchange before it reports a DEADLOCK and exits (0: forever)"},
    {NULL, NULL, NULL}};

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    if (cb_parse(ctx, "deadlock", CB_OPTIONS)) return CB_BAD_OPTIONS;
    long long size, watchdog;
    const char *order = cb_opt(ctx, CB_OPTIONS, "order");
    if (cb_opt_int(ctx, CB_OPTIONS, "size", 0, 1LL << 30, &size) ||
        cb_opt_int(ctx, CB_OPTIONS, "watchdog", 0, 3600, &watchdog))
        return CB_BAD_OPTIONS;
    int send_first = strcmp(order, "send-first") == 0;
    if (!send_first && strcmp(order, "recv-first") != 0) {
        cb_printf(ctx, "# result: ERROR: --order '%s' is not recv-first or send-first\n", order);
        return CB_BAD_OPTIONS;
    }
    cb_header(ctx, "deadlock");
    cb_printf(ctx, "# order: %s\n# size_bytes: %lld\n", order, size);
    char *sbuf = cb_alloc((size_t)size, 0), *rbuf = cb_alloc((size_t)size, 0);
    if (!cb_all_allocated(ctx, sbuf && rbuf, "two buffers of %lld bytes", size)) {
        free(sbuf);
        free(rbuf);
        return CB_BAD_OPTIONS;
    }
    for (long long i = 0; i < size; i++) sbuf[i] = (char)(ctx->rank + i);
    int right = (ctx->rank + 1) % ctx->size, left = (ctx->rank - 1 + ctx->size) % ctx->size;
    int ok = 1;
    if (ctx->size > 1) {
        if (watchdog > 0) cb_arm(ctx->rank, (int)watchdog, "the exchange");
        if (send_first) {
            MPI_Send(sbuf, (int)size, MPI_CHAR, right, 0, comm); /* returns only if eager */
            MPI_Recv(rbuf, (int)size, MPI_CHAR, left, 0, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, (int)size, MPI_CHAR, left, 0, comm, MPI_STATUS_IGNORE); /* waits forever */
            MPI_Send(sbuf, (int)size, MPI_CHAR, right, 0, comm);
        }
        cb_disarm();
        for (long long i = 0; i < size && ok; i++) ok = rbuf[i] == (char)(left + i);
    }
    free(sbuf);
    free(rbuf);
    if (!cb_all_ok(ctx, ok)) {
        cb_printf(ctx, "# result: VALIDATION FAILED: a received message differs from what was sent\n");
        return CB_VALIDATION_FAILED;
    }
    cb_printf(ctx, "# result: ok\n");
    return CB_OK;
}
