/*
 * send_modes.c -- the four send modes of MPI and what the library may buffer (the MPI primer,
 * book/mpi_primer.md). Rank 0 sends to rank 1, which posts its receive --delay-ms late; rank 0
 * times how long each send call takes to return:
 *
 *   standard     MPI_Send: the library decides; it may copy a small message out and return
 *                (eager) or wait for the receive (rendezvous);
 *   synchronous  MPI_Ssend: returns only once the matching receive has started;
 *   buffered     MPI_Bsend: copies into a buffer we attached, returns at once;
 *   ready        MPI_Rsend: allowed only when the receive is already posted (here it is).
 *
 * Rank 1 checks every message. Needs at least 2 ranks (the others wait).
 */
#include "commbench.h"

static const cb_optspec CB_OPTIONS[] = {
    {"small", "8", "bytes of the small messages"},
    {"large", "4M", "bytes of the large messages"},
    {"delay-ms", "200", "how late rank 1 posts its receive, in ms"},
    {NULL, NULL, NULL}};

enum { STANDARD, SYNCHRONOUS, BUFFERED, READY };
static const char *MODE_NAMES[] = {"standard", "synchronous", "buffered", "ready"};

/* send modes: the four calls */
static void send_in_mode(int mode, const char *buf, int n, MPI_Comm comm)
{
    switch (mode) {
    case STANDARD:    MPI_Send(buf, n, MPI_CHAR, 1, mode, comm);  break;
    case SYNCHRONOUS: MPI_Ssend(buf, n, MPI_CHAR, 1, mode, comm); break;
    case BUFFERED:    MPI_Bsend(buf, n, MPI_CHAR, 1, mode, comm); break; /* needs MPI_Buffer_attach */
    case READY:       MPI_Rsend(buf, n, MPI_CHAR, 1, mode, comm); break; /* receive must be posted */
    }
}
/* end of send modes */

/* One send of n bytes in `mode`, the receive posted delay_s late (or before, for ready).
 * Returns on rank 0 the seconds the send call took; sets *ok on rank 1. */
static double one_send(int mode, int n, double delay_s, char *buf, MPI_Comm comm, int rank, int *ok)
{
    double took = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    if (rank == 1 && mode == READY) MPI_Irecv(buf, n, MPI_CHAR, 0, mode, comm, &req);
    MPI_Barrier(comm);
    if (rank == 0) {
        for (int i = 0; i < n; i++) buf[i] = (char)cb_pattern(i, n, mode);
        double t0 = MPI_Wtime();
        send_in_mode(mode, buf, n, comm);
        took = MPI_Wtime() - t0;
    } else if (rank == 1) {
        if (mode == READY) {
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            usleep((useconds_t)(delay_s * 1e6));
            MPI_Recv(buf, n, MPI_CHAR, 0, mode, comm, MPI_STATUS_IGNORE);
        }
        for (int i = 0; i < n && *ok; i++) *ok = buf[i] == (char)cb_pattern(i, n, mode);
    }
    MPI_Barrier(comm);
    return took;
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    if (cb_parse(ctx, "send_modes", CB_OPTIONS)) return CB_BAD_OPTIONS;
    long long small, large, delay_ms;
    if (cb_opt_int(ctx, CB_OPTIONS, "small", 1, 1 << 20, &small) ||
        cb_opt_int(ctx, CB_OPTIONS, "large", 1, 1 << 28, &large) ||
        cb_opt_int(ctx, CB_OPTIONS, "delay-ms", 1, 10000, &delay_ms))
        return CB_BAD_OPTIONS;
    if (ctx->size < 2) {
        cb_printf(ctx, "# result: ERROR: send_modes needs at least 2 ranks\n");
        return CB_BAD_OPTIONS;
    }
    cb_header(ctx, "send_modes");
    cb_printf(ctx, "# delay_ms: %lld\n# columns: mode size_bytes return_ms\n", delay_ms);
    size_t cap = (size_t)large + MPI_BSEND_OVERHEAD;
    char *buf = cb_alloc((size_t)large, 0), *attached = malloc(cap);
    if (!cb_all_allocated(ctx, buf && attached, "%lld bytes twice", large)) return CB_BAD_OPTIONS;
    MPI_Buffer_attach(attached, (int)cap);
    int ok = 1;
    long long sizes[2] = {small, large};
    for (int mode = STANDARD; mode <= READY; mode++)
        for (int s = 0; s < 2; s++) {
            double took = one_send(mode, (int)sizes[s], delay_ms * 1e-3, buf, comm, ctx->rank, &ok);
            cb_printf(ctx, "%s %lld %.3f\n", MODE_NAMES[mode], sizes[s], took * 1e3);
        }
    void *detached;
    int detached_size;
    MPI_Buffer_detach(&detached, &detached_size);
    free(attached);
    free(buf);
    return cb_verdict(ctx, cb_all_ok(ctx, ok), "rank 1 received something else than was sent");
}
