/*
 * collectives_algos.h -- hand-written broadcast, gather and allreduce, and the measurement
 * loop that bcast.c, gather.c, allreduce.c, allgather.c, alltoall.c, reduce_scatter.c and the
 * butterfly exercise share: the declarations; the code is in collectives_algos.c, compiled and
 * linked with every kernel that includes this header (as OSU's osu_util.c/.h).  allgather.c,
 * alltoall.c and reduce_scatter.c time only the library's collective: cc_library_main is all
 * of each but its call and check.
 *
 * Every algorithm is written with plain MPI_Send / MPI_Recv / MPI_Sendrecv so the reader can
 * follow each message.  Ranks are renumbered relative to the root (vr = (rank - root + P) % P)
 * so every tree works for any root.  The library's own collective ("library" or
 * "library:ID" for an algorithm forced through the environment) runs in the same loop.
 *
 * Optional instruments, outside the timed loop, on the first size of the sweep that is not 0:
 *   --trace 1    each hand-written algorithm notes its sends; rank 0 prints them as
 *                "# trace: ALG step S: SRC -> DST bytes=B phase=P" (the homework's
 *                "Communication from i to j" diagram, step by step);
 *   --monitor 1  Open MPI only: messages per peer counted by the library itself (MPI_T pvar
 *                pml_monitoring_messages_count, needs OMPI_MCA_pml_monitoring_enable=1), printed
 *                as "# messages: ALG SRC -> DST count=C bytes=B".  This shows which
 *                algorithm the library really ran, hand-written or forced by library:ID.
 */
#ifndef COLLECTIVES_ALGOS_H
#define COLLECTIVES_ALGOS_H

#include "commbench.h"

#define CC_MAX_ALGS 16
#define CC_MAX_SIZES 128
#define CC_TAG 4242
#define CC_MAX_BYTES (1LL << 30)

/* ---- trace of hand-written algorithms (sends only; every message has one sender) ---- */

typedef struct {
    int step, src, dst;
    long long bytes;
    char phase[16];
} cc_msg;

typedef struct {
    int on;
    int n, cap;
    cc_msg *m;
} cc_trace;

void cc_note(cc_trace *t, int step, int src, int dst, long long bytes, const char *phase);
/* Rank 0 collects every rank's notes and prints them. Collective. */
void cc_trace_print(cb_ctx *ctx, const char *alg, cc_trace *t);

/* ---- which algorithms a kernel offers ---------------------------------------------- */

/* One call of an algorithm at `size` bytes on the kernel's state (its buffers, root, ...);
 * `tr` notes the sends (NULL: not traced). */
typedef void (*cc_algo_fn)(cb_ctx *ctx, void *state, long long size, cc_trace *tr);

/* A kernel's hand-written algorithms: {"name", "what it does", function}, ..., {NULL, NULL,
 * NULL}.  The names and descriptions are also read by commbook.c_tables. */
typedef struct {
    const char *name;
    const char *what;
    cc_algo_fn run;
} cc_algo;

typedef struct {
    int n;
    int index[CC_MAX_ALGS];          /* into the kernel's cc_algo table; -1: library */
    cc_algo_fn run[CC_MAX_ALGS];     /* the table's function, or the library's collective */
    char label[CC_MAX_ALGS][64];     /* as printed in the algorithm column */
} cc_choice;

/* The options every collective kernel has after its --sizes and --algorithm (and its own):
 * one definition, spliced into each kernel's cb_optspec table (commbook.c_tables expands it
 * the same way). */
#define CC_BENCH_OPTIONS                                                                          \
    {"iterations", "200", "calls per repetition for small sizes (fewer for large)"},              \
    {"repetitions", "5", "timed repetitions per size and algorithm"},                             \
    {"trace", "0", "1: print each hand-written algorithm's messages step by step (# trace: lines)"}, \
    {"monitor", "0", "1: print the messages the library counted (Open MPI pml monitoring)"},      \
    {"inject-error", "0", "testing only: 1 corrupts one result to prove the check fails"}

/* ---- the hand-written algorithms (collectives_algos.c) ------------------------------------ */

int cc_real(int vr, int root, int P);
/* This rank's number relative to the root, vr = (rank - root) mod P, which every tree is
 * drawn in; also gives the rank and the size P. */
int cc_relative_rank(MPI_Comm comm, int root, int *rank, int *P);
/* Largest power of two <= x (x >= 1), and the lowest set bit. */
int cc_pof2_floor(int x);
int cc_lowbit(int x);
/* Blocks a binomial-gather subtree rooted at vr holds: its own and its children's. */
int cc_subtree_blocks(int vr, int P);

void cc_bcast_linear(char *buf, int n, int root, MPI_Comm comm, cc_trace *tr);
void cc_bcast_chain(char *buf, int n, int root, MPI_Comm comm, cc_trace *tr);
void cc_bcast_pipeline(char *buf, int n, long long seg, int root, MPI_Comm comm, cc_trace *tr);
void cc_bcast_binary(char *buf, int n, int root, MPI_Comm comm, cc_trace *tr);
void cc_bcast_binomial(char *buf, int n, int root, MPI_Comm comm, cc_trace *tr);
void cc_bcast_scatter_allgather(char *buf, int n, int root, MPI_Comm comm, cc_trace *tr);

void cc_gather_linear(const char *sbuf, char *rbuf, int n, int root, MPI_Comm comm, cc_trace *tr);
/* `tmp` holds cc_subtree_blocks(vr) blocks (root: P). */
void cc_gather_binomial(const char *sbuf, char *rbuf, char *tmp, int n, int root, MPI_Comm comm,
                        cc_trace *tr);

/* Allreduce, sum of doubles; `tmp` holds count doubles. */
void cc_allreduce_start(const double *sbuf, double *rbuf, int count, MPI_Comm comm, int *rank, int *P);
int cc_fold_in(double *rbuf, double *tmp, int count, int rank, int rem, MPI_Comm comm, cc_trace *tr);
void cc_fold_out(double *rbuf, int count, int rank, int rem, int step, MPI_Comm comm, cc_trace *tr);
void cc_allreduce_butterfly(const double *sbuf, double *rbuf, double *tmp, int count,
                            int low_to_high, MPI_Comm comm, cc_trace *tr);
void cc_allreduce_ring(const double *sbuf, double *rbuf, double *tmp, int count, MPI_Comm comm,
                       cc_trace *tr);
void cc_allreduce_rabenseifner(const double *sbuf, double *rbuf, double *tmp, int count,
                               MPI_Comm comm, cc_trace *tr);

/* ---- the measurement loop -------------------------------------------------------------- */

/* Prepare inputs, run `run` once, check the result against the library's on this rank;
 * return 1 if right. `inject` corrupts the result first (to prove the check works). */
typedef int (*cc_check_fn)(cb_ctx *ctx, void *state, cc_algo_fn run, long long size, int inject,
                           char *why, size_t cap);

typedef struct {
    const char *op;        /* "bcast", "gather", "allreduce" */
    const cc_algo *table;  /* the kernel's hand-written algorithms */
    cc_choice choice;
    long long sizes[CC_MAX_SIZES];
    int nsizes;
    long long smax;        /* the largest size */
    long long iterations, repetitions, trace, monitor, inject;
    void *state;
    cc_check_fn check;
} cc_bench;

/* The options every collective kernel has (--sizes, multiples of `unit` bytes; --algorithm
 * from `table`, "library" running `library`; CC_BENCH_OPTIONS) into `b`.  The kernel then
 * gives its state and check to cc_begin. */
int cc_parse_bench(cb_ctx *ctx, const cb_optspec *spec, const char *op, const cc_algo *table,
                   cc_algo_fn library, long long unit, cc_bench *b);
/* Hand cc_run the kernel's state and check, then print the header (`name`: the kernel's). */
void cc_begin(cb_ctx *ctx, const char *name, cc_bench *b, int root, void *state, cc_check_fn check);
/* Validate, instrument, then time every (size, algorithm); prints the rows. */
int cc_run(cb_ctx *ctx, cc_bench *b);
/* Whether P blocks of `smax` bytes fit the int count of one MPI call; if not, says so ("from"
 * each rank for a gather, "to" each for an alltoall). */
int cc_blocks_fit(cb_ctx *ctx, long long smax, const char *from_or_to);

/* ---- the kernels that only time the library's collective ------------------------------- */
/* allgather.c, alltoall.c and reduce_scatter.c: one driver, so each file holds only its own. */

/* How their buffers grow with P: one block from each rank to all (allgather: P received),
 * a block from each rank to each (alltoall: P sent and received), or one vector of doubles
 * summed and cut into P shares (reduce_scatter: no factor P). */
typedef enum { CC_ONE_TO_ALL, CC_EACH_TO_EACH, CC_REDUCE } cc_layout;

typedef struct cc_lstate cc_lstate;
/* The kernel's MPI call at `size` bytes, and its self-check (as cc_check_fn, without the
 * algorithm: the library's collective is the only one). */
typedef void (*cc_lcall_fn)(cb_ctx *ctx, cc_lstate *st, long long size);
typedef int (*cc_lcheck_fn)(cb_ctx *ctx, cc_lstate *st, long long size, int inject, char *why,
                            size_t cap);

/* Buffers for the largest size, which cc_library_main allocates. */
struct cc_lstate {
    void *sbuf, *rbuf;
    int *counts; /* P ints: reduce_scatter's share of each rank */
    cc_lcall_fn call;
    cc_lcheck_fn check;
};

/* Byte j of the block rank `from` sends to rank `to` (an allgather sends one block to all). */
typedef unsigned char (*cc_pattern_fn)(int from, int to, long long j, long long size);

/* The rest of the allgather and alltoall checks, once the kernel has filled its send buffer:
 * one call into a poisoned buffer, one byte corrupted on rank `inject_rank` (-1: none), then
 * block k must hold pattern(k, this rank, ...), what rank k sent here. `of`: the message's
 * "block of" or "block from". */
int cc_check_blocks(cb_ctx *ctx, cc_lstate *st, long long size, int inject_rank,
                    cc_pattern_fn pattern, const char *of, char *why, size_t cap);
/* All of such a kernel but its call and check: options (--sizes in doubles for CC_REDUCE),
 * header, buffers for the largest size, then cc_run. */
int cc_library_main(cb_ctx *ctx, const char *op, const cb_optspec *spec, cc_layout layout,
                    cc_lcall_fn call, cc_lcheck_fn check);

/* ---- the allreduce kernel (allreduce.c and the butterfly exercise share it) ------------ */

/* A reader's allreduce for the exercise: sum of `count` doubles over comm, like MPI_Allreduce. */
typedef void (*cc_user_allreduce)(const double *sendbuf, double *recvbuf, int count, MPI_Comm comm);

extern const cb_optspec CC_ALLREDUCE_OPTIONS[];
extern const cc_algo CC_ALLREDUCE_ALGOS[];

/* Integer values so every order of summation gives exactly the same double. */
double cc_avalue(int rank, long long i);
/* The allreduce kernel; `user` is the reader's allreduce ("mine"), NULL outside the exercise. */
int cc_allreduce_main(cb_ctx *ctx, const char *name, cc_user_allreduce user);

#endif /* COLLECTIVES_ALGOS_H */
