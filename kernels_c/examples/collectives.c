/*
 * collectives.c -- the collective operations the book measures (the MPI primer,
 * book/mpi_primer.md), each on a few integers, each checked on every rank against what it
 * must give. Rank 0 prints one line per operation.
 */
#include "commbench.h"

static const cb_optspec CB_OPTIONS[] = {
    {"root", "0", "root of the rooted operations"},
    {NULL, NULL, NULL}};

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    if (cb_parse(ctx, "collectives", CB_OPTIONS)) return CB_BAD_OPTIONS;
    long long root_opt;
    if (cb_opt_int(ctx, CB_OPTIONS, "root", 0, ctx->size - 1, &root_opt)) return CB_BAD_OPTIONS;
    int root = (int)root_opt, me = ctx->rank, P = ctx->size;
    cb_header(ctx, "collectives");
    cb_printf(ctx, "# columns: operation correct_on_every_rank\n");
    int *all = malloc(sizeof(int) * (size_t)P), *mix = malloc(sizeof(int) * (size_t)P);
    int x, ok, every_ok = 1, sum_ranks = P * (P - 1) / 2;
#define REPORT(name) do { int good = cb_all_ok(ctx, ok); every_ok &= good; \
        cb_printf(ctx, "%s %s\n", name, good ? "yes" : "NO"); } while (0)

    /* collectives: the calls */
    MPI_Barrier(comm);                                  /* nobody leaves before all arrive */
    ok = 1; REPORT("MPI_Barrier");

    x = me == root ? 1234 : -1;
    MPI_Bcast(&x, 1, MPI_INT, root, comm);              /* root's x to everybody */
    ok = x == 1234; REPORT("MPI_Bcast");

    int sum = -1;
    MPI_Reduce(&me, &sum, 1, MPI_INT, MPI_SUM, root, comm);  /* sum of ranks, at root only */
    ok = me != root || sum == sum_ranks; REPORT("MPI_Reduce");

    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm);     /* the same, everywhere */
    ok = sum == sum_ranks; REPORT("MPI_Allreduce");

    int sq = me * me;
    MPI_Gather(&sq, 1, MPI_INT, all, 1, MPI_INT, root, comm); /* block i from rank i, at root */
    ok = 1;
    for (int i = 0; i < P && me == root; i++) ok &= all[i] == i * i;
    REPORT("MPI_Gather");

    for (int i = 0; i < P; i++) all[i] = 10 * i;
    MPI_Scatter(all, 1, MPI_INT, &x, 1, MPI_INT, root, comm); /* block i of root to rank i */
    ok = x == 10 * me; REPORT("MPI_Scatter");

    MPI_Allgather(&sq, 1, MPI_INT, all, 1, MPI_INT, comm);    /* a gather, everywhere */
    ok = 1;
    for (int i = 0; i < P; i++) ok &= all[i] == i * i;
    REPORT("MPI_Allgather");

    for (int i = 0; i < P; i++) mix[i] = 100 * me + i;        /* block i goes to rank i */
    MPI_Alltoall(mix, 1, MPI_INT, all, 1, MPI_INT, comm);
    ok = 1;
    for (int i = 0; i < P; i++) ok &= all[i] == 100 * i + me;
    REPORT("MPI_Alltoall");

    for (int i = 0; i < P; i++) mix[i] = i + me;              /* reduce, then scatter */
    MPI_Reduce_scatter_block(mix, &x, 1, MPI_INT, MPI_SUM, comm);
    ok = x == P * me + sum_ranks; REPORT("MPI_Reduce_scatter_block");
    /* end of the calls */
#undef REPORT
    free(all);
    free(mix);
    return cb_verdict(ctx, every_ok, "a collective gave a wrong result (see the NO lines)");
}
