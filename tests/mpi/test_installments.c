/* MPI test of the pipelined scatter (divload_mpi_installments.h) under a real mpirun
 * (tests/mpi/run: 2, 4 and 8 ranks).
 *
 * For several item counts, roots and options (as many installments as help, at most 3,
 * the root computing while it sends, a root that only distributes, memory caps on some
 * ranks, a rank that starts late, a deadline), every rank checks that the helper's chunks
 * are libdivload's plan for the gathered costs, caps and release times; that its compute
 * function is called once per chunk of its own, in send order, on exactly the records
 * [first, first + count) intact, each chunk within the rank's cap; and the root checks
 * that the counts and record checksums add up over all ranks, so that every record
 * planned arrived exactly once. Also: a root out of range, a NULL argument on one rank, a
 * bad cost on one rank, caps too small for the items and more than INT_MAX items fail on
 * every rank with the same status. Exit status 0 only if every rank passed. */
#include "divload_mpi.h"
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    int64_t id;
    uint64_t check;
} record;

/* Startup costs large enough that several installments pay off, and ranks of different
 * speeds and links. */
static divload_worker costs_of(int r) {
    divload_worker w = {2e-3 * (1 + r % 2), 1e-5 * (1 + (r * 7) % 5), 1e-3, 1e-4 * (1 + (r * 3) % 4)};
    return w;
}

typedef struct {
    const divload_mpi_installments *plan;
    int calls;          /* chunks computed so far */
    int next;           /* index in plan->chunk of the next chunk of this rank expected */
    uint64_t cap;       /* this rank's cap */
    uint64_t sum;       /* checksum of the records computed */
    long long items;    /* records computed */
} seen;

static void compute_chunk(void *ctx, void *items, int count, long long first) {
    seen *s = (seen *)ctx;
    const divload_mpi_installments *plan = s->plan;
    /* The chunks of this rank, in send order. */
    while (s->next < plan->chunks && (int)plan->chunk[s->next].rank != rank_) s->next++;
    CHECK(s->next < plan->chunks);
    if (s->next < plan->chunks) {
        CHECK((long long)plan->chunk[s->next].displacement == first);
        CHECK((long long)plan->chunk[s->next].count == count);
        s->next++;
    }
    CHECK(count > 0 && (uint64_t)count <= s->cap);
    CHECK(first >= plan->my_displacement && first + count <= (long long)plan->my_displacement + plan->my_count);
    const record *r = (const record *)items;
    for (int i = 0; i < count; i++) {
        CHECK(r[i].id == first + i);
        CHECK(r[i].check == mix((uint64_t)(first + i)));
        s->sum += mix((uint64_t)r[i].id);
    }
    s->calls++;
    s->items += count;
}

static void run_case(long long items, int root, const divload_installment_options *opts, int capped, int late) {
    divload_worker me = costs_of(rank_);
    uint64_t cap = capped && rank_ % 2 == 1 ? (uint64_t)(items / (2 * size_) + 1) : UINT64_MAX;
    double available = late && rank_ == size_ - 1 && rank_ != root ? 0.05 : 0.0;
    divload_mpi_installments plan;
    int st = divload_mpi_installments_create(MPI_COMM_WORLD, root, &me, cap, available, items, opts, &plan);
    CHECK(st == DIVLOAD_OK);
    if (st != DIVLOAD_OK) return;

    /* The helper's plan is libdivload's plan for the gathered costs, caps and release times. */
    divload_worker *w = (divload_worker *)malloc(sizeof *w * (size_t)size_);
    uint64_t *caps = (uint64_t *)malloc(sizeof *caps * (size_t)size_);
    double *rel = (double *)malloc(sizeof *rel * (size_t)size_);
    divload_chunk *mine = (divload_chunk *)malloc(sizeof *mine * (divload_installment_chunks_max((size_t)size_)));
    for (int r = 0; r < size_; r++) {
        w[r] = costs_of(r);
        caps[r] = capped && r % 2 == 1 ? (uint64_t)(items / (2 * size_) + 1) : UINT64_MAX;
        rel[r] = late && r == size_ - 1 && r != root ? 0.05 : 0.0;
    }
    size_t n = 0;
    divload_plan_summary s;
    CHECK(divload_plan_installments(w, (size_t)size_, (size_t)root, (uint64_t)items, caps, rel, opts, mine,
                                    divload_installment_chunks_max((size_t)size_), &n, &s) == DIVLOAD_OK);
    CHECK((int)n == plan.chunks);
    CHECK(memcmp(mine, plan.chunk, n * sizeof *mine) == 0);
    CHECK(s.makespan == plan.summary.makespan && s.items == plan.summary.items);
    CHECK(plan.summary.lower_bound <= plan.summary.makespan);
    /* With these startup costs, 20 000 items go in several rounds: the test pipelines. */
    if (items == 20000 && opts == NULL && size_ > 1) CHECK(plan.chunks > size_);
    long long planned = (long long)plan.summary.items;
    CHECK(opts != NULL && opts->deadline > 0 ? planned <= items : planned == items);
    if (opts != NULL && opts->root_mode == DIVLOAD_ROOT_MODE_DISTRIBUTE_ONLY) CHECK(plan.counts_by_rank[root] == 0);

    record *all = NULL;
    uint64_t expected = 0;
    if (rank_ == root) {
        all = (record *)malloc(sizeof(record) * (size_t)(items > 0 ? items : 1));
        for (long long i = 0; i < items; i++) {
            all[i].id = i;
            all[i].check = mix((uint64_t)i);
        }
        for (long long i = 0; i < planned; i++) expected += mix((uint64_t)i);
    }
    record *recv = (record *)malloc(sizeof(record) * (size_t)(plan.my_count + 1));
    MPI_Datatype t;
    MPI_Type_contiguous((int)sizeof(record), MPI_BYTE, &t);
    MPI_Type_commit(&t);
    seen got = {&plan, 0, 0, cap, 0, 0};
    CHECK(divload_mpi_installments_scatter(&plan, all, t, recv, compute_chunk, &got) == MPI_SUCCESS);
    CHECK(got.calls == plan.my_chunks);
    CHECK(got.items == plan.my_count);
    /* The receive buffer holds the rank's block in order, as a one-shot Scatterv would. */
    for (int i = 0; i < plan.my_count; i++) CHECK(recv[i].id == plan.my_displacement + i);

    long long counted = 0;
    uint64_t total = 0;
    long long my_items = got.items;
    MPI_Reduce(&my_items, &counted, 1, MPI_LONG_LONG, MPI_SUM, root, MPI_COMM_WORLD);
    MPI_Reduce(&got.sum, &total, 1, MPI_UINT64_T, MPI_SUM, root, MPI_COMM_WORLD);
    if (rank_ == root) {
        CHECK(counted == planned);
        CHECK(total == expected);
    }
    MPI_Type_free(&t);
    free(recv);
    free(all);
    free(w);
    free(caps);
    free(rel);
    free(mine);
    divload_mpi_installments_free(&plan);
}

/* A failing call must fail on every rank with the same status. */
static void expect_everywhere(int st, int want) {
    CHECK(st == want);
    int lo = 0, hi = 0;
    MPI_Allreduce(&st, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&st, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);

    divload_installment_options three = {DIVLOAD_ROOT_MODE_AFTER_SEND, 3, 0.0};
    divload_installment_options overlap = {DIVLOAD_ROOT_MODE_OVERLAP, DIVLOAD_INSTALLMENTS_AUTO, 0.0};
    divload_installment_options io = {DIVLOAD_ROOT_MODE_DISTRIBUTE_ONLY, DIVLOAD_INSTALLMENTS_AUTO, 0.0};
    divload_installment_options deadline = {DIVLOAD_ROOT_MODE_AFTER_SEND, DIVLOAD_INSTALLMENTS_AUTO, 0.2};
    long long sizes[] = {1, 7, 1000, 20000};
    for (int i = 0; i < 4; i++) {
        long long n = sizes[i];
        run_case(n, 0, NULL, 0, 0);
        run_case(n, size_ - 1, &three, 0, 0);
        run_case(n, 0, &overlap, 0, 0);
        if (size_ > 1) run_case(n, 0, &io, 1, 1);
        run_case(n, 0, &deadline, 0, 1);
    }

    divload_worker me = costs_of(rank_);
    divload_mpi_installments plan;
    expect_everywhere(divload_mpi_installments_create(MPI_COMM_WORLD, size_, &me, UINT64_MAX, 0, 10, NULL, &plan),
                      DIVLOAD_INVALID_INPUT);
    expect_everywhere(divload_mpi_installments_create(MPI_COMM_WORLD, 0, rank_ == size_ - 1 ? NULL : &me,
                                                      UINT64_MAX, 0, 10, NULL, &plan),
                      DIVLOAD_NULL_PARAMETER);
    divload_worker bad = me;
    if (rank_ == size_ - 1 && size_ > 1) bad.comp_per_item = NAN;
    if (size_ > 1)
        expect_everywhere(divload_mpi_installments_create(MPI_COMM_WORLD, 0, &bad, UINT64_MAX, 0, 10, NULL, &plan),
                          DIVLOAD_INVALID_INPUT);
    divload_installment_options one = {DIVLOAD_ROOT_MODE_AFTER_SEND, 1, 0.0};
    expect_everywhere(divload_mpi_installments_create(MPI_COMM_WORLD, 0, &me, 2, 0, 1000, &one, &plan),
                      DIVLOAD_INVALID_INPUT);
    expect_everywhere(divload_mpi_installments_create(MPI_COMM_WORLD, 0, &me, UINT64_MAX, 0, (long long)INT_MAX + 1,
                                                      NULL, &plan),
                      DIVLOAD_OVERFLOW);
    return finish("test_installments",
                  " (plans, chunks computed as they arrive, caps, release times, deadline, errors)");
}
