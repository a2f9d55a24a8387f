/* MPI test of the return-message helpers of divload_mpi.h under a real mpirun
 * (tests/mpi/run: 2, 4 and 8 ranks).
 *
 * For the best, LIFO and FIFO schedules, several item counts (fewer items than ranks
 * included) and two roots: every rank checks that the helper's plan is libdivload's plan
 * for the gathered costs (the root's c and d taken as 0) and that its rank in send_comm is
 * its send position; item i is scattered as the record {i, mix(i)} and each rank checks it
 * received exactly [displacement, displacement + count). Each rank returns one result per
 * item, {i, rank, f(i)}; the root checks that all N results are in place, each exactly once
 * from the rank that was given item i, that the arrivals (recorded by the arrival callback)
 * follow the planned return order over the ranks with items, and that when a rank's results
 * arrive, exactly the ranks before it in the return order have theirs in place. Also: a bad
 * cost on one rank, an unknown schedule, too many items, a root out of range or a NULL
 * argument on one rank fail on every rank with the same status. Exit status 0 only if
 * every rank passed. */
#include "divload_mpi.h"
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    int64_t id;
    uint64_t check;
} record;

typedef struct {
    int64_t id;     /* the item, -1 until its result has arrived */
    int64_t rank;   /* the rank that computed it */
    uint64_t value; /* f(id) */
} result;

static uint64_t f(uint64_t x) { return mix(x ^ 0x5bd1e995ULL) * 3 + 1; }

static int cases = 0, idle_ranks = 0;

/* Heterogeneous costs (seconds per item): links, processing and result sizes vary. */
static divload_return_worker costs_of(int r) {
    divload_return_worker w = {1e-6 * (1 + (r * 7) % 5), 1e-4 * (1 + (r * 3) % 4), 5e-7 * (1 + (r * 5) % 3)};
    return w;
}

/* What the root observes while the results come in. */
typedef struct {
    const divload_mpi_returns_plan *plan;
    const result *results;
    int *arrived;   /* ranks in arrival order */
    int n_arrived;
    int root_in_place; /* the root's results were in place before the gather */
} arrivals;

static int block_in_place(const result *res, const divload_return_assignment *a) {
    for (uint64_t j = 0; j < a->count; j++) {
        const result *x = &res[a->displacement + j];
        if (x->id != (int64_t)(a->displacement + j) || x->rank != (int64_t)a->rank || x->value != f((uint64_t)x->id))
            return 0;
    }
    return 1;
}

static void on_arrival(void *ctx, int rank, int count, int displacement) {
    arrivals *obs = (arrivals *)ctx;
    const divload_mpi_returns_plan *plan = obs->plan;
    CHECK(rank >= 0 && rank < size_);
    if (rank < 0 || rank >= size_) return;
    const divload_return_assignment *me = &plan->by_rank[rank];
    CHECK(count == (int)me->count && displacement == (int)me->displacement && count > 0);
    /* Exactly the ranks up to this one in the return order have their results in place;
       the first result of every later rank is still the sentinel. */
    for (int r = 0; r < size_; r++) {
        const divload_return_assignment *a = &plan->by_rank[r];
        if (a->count == 0) continue;
        if (a->return_position <= me->return_position || (obs->root_in_place && r == plan->root))
            CHECK(block_in_place(obs->results, a));
        else
            CHECK(obs->results[a->displacement].id == -1);
    }
    obs->arrived[obs->n_arrived++] = rank;
}

/* Field by field: the structs have padding, which memcmp would compare. */
static int same_assignment(const divload_return_assignment *x, const divload_return_assignment *y) {
    return x->rank == y->rank && x->count == y->count && x->displacement == y->displacement &&
           x->send_position == y->send_position && x->return_position == y->return_position &&
           x->member == y->member && x->share == y->share && x->send_start == y->send_start &&
           x->received == y->received && x->computed == y->computed && x->return_start == y->return_start &&
           x->return_end == y->return_end && x->idle == y->idle;
}

static void run_case(long long items, int root, uint32_t schedule, int in_place) {
    cases++;
    divload_return_worker me = costs_of(rank_);
    divload_mpi_returns_plan plan;
    int st = divload_mpi_returns_plan_create(MPI_COMM_WORLD, root, &me, items, schedule, DIVLOAD_PORT_FULL_DUPLEX,
                                             &plan);
    CHECK(st == DIVLOAD_OK);
    if (st != DIVLOAD_OK) return;

    /* The helper's plan is libdivload's plan for the gathered costs, root's c = d = 0. */
    divload_return_worker *w = (divload_return_worker *)malloc(sizeof *w * (size_t)size_);
    divload_return_assignment *a = (divload_return_assignment *)malloc(sizeof *a * (size_t)size_);
    for (int r = 0; r < size_; r++) {
        w[r] = costs_of(r);
        if (r == root) w[r].comm_per_item = w[r].return_per_item = 0.0;
        CHECK(memcmp(&w[r], &plan.workers[r], sizeof w[r]) == 0);
    }
    divload_returns_summary s;
    CHECK(divload_plan_returns(w, (size_t)size_, (uint64_t)items, schedule, DIVLOAD_PORT_FULL_DUPLEX, a,
                               (size_t)size_, &s) == DIVLOAD_OK);
    for (int k = 0; k < size_; k++) {
        CHECK(a[k].rank < (size_t)size_ && same_assignment(&a[k], &plan.by_rank[a[k].rank]));
        CHECK(plan.return_order[a[k].return_position] == (int)a[k].rank);
        if (schedule == DIVLOAD_SCHEDULE_LIFO) CHECK(a[k].return_position == (size_t)(size_ - 1 - k));
        if (schedule == DIVLOAD_SCHEDULE_FIFO) CHECK(a[k].return_position == (size_t)k);
    }
    CHECK(s.items == plan.summary.items && s.members == plan.summary.members &&
          s.participating == plan.summary.participating && s.makespan == plan.summary.makespan &&
          s.lower_bound == plan.summary.lower_bound && s.bound == plan.summary.bound &&
          s.throughput == plan.summary.throughput && s.schedule == schedule);
    int send_rank = -1;
    MPI_Comm_rank(plan.send_comm, &send_rank);
    CHECK(send_rank == plan.my_position && plan.send_root == (int)plan.by_rank[root].send_position);
    CHECK(plan.summary.items == (uint64_t)items);

    /* Scatter item i as {i, mix(i)} and check what arrived. */
    record *all = NULL;
    result *results = NULL;
    if (rank_ == root) {
        all = (record *)malloc(sizeof(record) * (size_t)items);
        results = (result *)malloc(sizeof(result) * (size_t)items);
        for (long long i = 0; i < items; i++) {
            all[i] = (record){i, mix((uint64_t)i)};
            results[i] = (result){-1, -1, 0};
        }
    }
    MPI_Datatype rec_type, res_type;
    MPI_Type_contiguous((int)sizeof(record), MPI_BYTE, &rec_type);
    MPI_Type_commit(&rec_type);
    MPI_Type_contiguous(3, MPI_INT64_T, &res_type);
    MPI_Type_commit(&res_type);
    const size_t room = (size_t)(plan.my_count > 0 ? plan.my_count : 1);
    record *mine = (record *)malloc(sizeof(record) * room);
    result *out = (result *)malloc(sizeof(result) * room);
    CHECK(divload_mpi_returns_scatterv(&plan, all, rec_type, mine) == MPI_SUCCESS);
    for (int j = 0; j < plan.my_count; j++) {
        CHECK(mine[j].id == (int64_t)plan.my_displacement + j);
        CHECK(mine[j].check == mix((uint64_t)mine[j].id));
        out[j] = (result){mine[j].id, rank_, f((uint64_t)mine[j].id)};
    }
    /* In place on the root: its results are written straight into the result buffer. */
    const void *sendbuf = out;
    if (in_place && rank_ == root) {
        for (int j = 0; j < plan.my_count; j++) results[plan.my_displacement + j] = out[j];
        sendbuf = MPI_IN_PLACE;
    }

    arrivals obs = {&plan, results, (int *)calloc((size_t)size_, sizeof(int)), 0, in_place};
    CHECK(divload_mpi_gatherv_ordered(&plan, sendbuf, res_type, results, on_arrival, &obs) == MPI_SUCCESS);
    if (rank_ == root) {
        /* The arrivals are the planned return order over the ranks with items. */
        int expected = 0;
        for (int t = 0; t < size_; t++) {
            int r = plan.return_order[t];
            if (plan.by_rank[r].count == 0) continue;
            CHECK(expected < obs.n_arrived && obs.arrived[expected] == r);
            expected++;
        }
        CHECK(obs.n_arrived == expected);
        /* Every result is in place, from the rank that was given its item. */
        int64_t owner_of = 0;
        uint64_t total = 0;
        for (int t = 0; t < size_; t++) total += plan.by_rank[t].count;
        CHECK(total == (uint64_t)items);
        for (int k = 0; k < size_; k++) {
            const divload_return_assignment *b = &a[k];
            for (uint64_t j = 0; j < b->count; j++) {
                const result *x = &results[b->displacement + j];
                if (x->id != (int64_t)(b->displacement + j) || x->rank != (int64_t)b->rank ||
                    x->value != f((uint64_t)x->id))
                    owner_of++;
            }
        }
        CHECK(owner_of == 0);
        for (int r = 0; r < size_; r++) idle_ranks += plan.by_rank[r].count == 0;
        for (long long i = 0; i < items; i++) CHECK(results[i].id == i);
    }
    free(obs.arrived);
    MPI_Type_free(&rec_type);
    MPI_Type_free(&res_type);
    free(mine);
    free(out);
    free(all);
    free(results);
    free(w);
    free(a);
    divload_mpi_returns_plan_free(&plan);
}

/* A failure must reach every rank with the same status and leave nothing to free. */
static void expect_failure_at(int root, const divload_return_worker *me, long long items, uint32_t schedule,
                              int expected, const char *needle) {
    divload_mpi_returns_plan plan;
    memset(&plan, 0x5a, sizeof plan);
    int st = divload_mpi_returns_plan_create(MPI_COMM_WORLD, root, me, items, schedule, DIVLOAD_PORT_FULL_DUPLEX,
                                             &plan);
    CHECK(st == expected);
    int lo = st, hi = st;
    MPI_Allreduce(&st, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&st, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi);
    CHECK(plan.by_rank == NULL && plan.counts == NULL && plan.send_comm == MPI_COMM_NULL);
    if (rank_ == 0 && needle != NULL) {
        char msg[256];
        divload_last_error_message(msg, sizeof msg);
        if (strstr(msg, needle) == NULL) {
            fprintf(stderr, "rank 0: expected \"%s\" in \"%s\"\n", needle, msg);
            errors++;
        }
    }
}

static void expect_failure(const divload_return_worker *me, long long items, uint32_t schedule, int expected,
                           const char *needle) {
    expect_failure_at(0, me, items, schedule, expected, needle);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);

    const long long item_counts[] = {1, 5, 1000, 100003};
    const uint32_t schedules[] = {DIVLOAD_SCHEDULE_BEST, DIVLOAD_SCHEDULE_LIFO, DIVLOAD_SCHEDULE_FIFO};
    for (size_t i = 0; i < sizeof item_counts / sizeof item_counts[0]; i++) {
        for (size_t s = 0; s < 3; s++) {
            run_case(item_counts[i], 0, schedules[s], 0);
            run_case(item_counts[i], size_ - 1, schedules[s], (int)(i % 2));
        }
    }

    /* A bad cost on the last rank (not the root, whose c and d are replaced). */
    const double bad[] = {NAN, -1.0};
    for (int b = 0; b < 2; b++) {
        divload_return_worker me = costs_of(rank_);
        if (rank_ == size_ - 1 && size_ > 1) me.return_per_item = bad[b];
        if (size_ > 1) expect_failure(&me, 100, DIVLOAD_SCHEDULE_LIFO, DIVLOAD_INVALID_INPUT, "return_per_item");
        me = costs_of(rank_);
        if (rank_ == size_ - 1) me.comp_per_item = bad[b];
        expect_failure(&me, 100, DIVLOAD_SCHEDULE_BEST, DIVLOAD_INVALID_INPUT, "comp_per_item must be finite and > 0");
    }
    divload_return_worker me = costs_of(rank_);
    expect_failure(&me, 100, 7, DIVLOAD_INVALID_INPUT, "schedule: must be 0 (BEST), 1 (LIFO) or 2 (FIFO), got 7");
    expect_failure(&me, (long long)INT_MAX + 1, DIVLOAD_SCHEDULE_FIFO, DIVLOAD_OVERFLOW, NULL);
    expect_failure(&me, 0, DIVLOAD_SCHEDULE_FIFO, DIVLOAD_INVALID_INPUT, "items: must be at least 1");
    /* A root out of range, and a NULL argument on one rank only: every rank fails alike
       instead of waiting for the others. */
    expect_failure_at(-1, &me, 100, DIVLOAD_SCHEDULE_BEST, DIVLOAD_INVALID_INPUT, NULL);
    expect_failure_at(size_, &me, 100, DIVLOAD_SCHEDULE_BEST, DIVLOAD_INVALID_INPUT, NULL);
    expect_failure_at(0, rank_ == size_ - 1 ? NULL : &me, 100, DIVLOAD_SCHEDULE_BEST, DIVLOAD_NULL_PARAMETER, NULL);
    expect_failure_at(size_ - 1, rank_ == 0 ? NULL : &me, 100, DIVLOAD_SCHEDULE_BEST, DIVLOAD_NULL_PARAMETER, NULL);
    {
        divload_mpi_returns_plan plan;
        int st = divload_mpi_returns_plan_create(MPI_COMM_WORLD, 0, &me, 100, DIVLOAD_SCHEDULE_BEST,
                                                 DIVLOAD_PORT_FULL_DUPLEX, rank_ == size_ - 1 ? NULL : &plan);
        int lo = st, hi = st;
        MPI_Allreduce(&st, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&st, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        CHECK(st == DIVLOAD_NULL_PARAMETER && lo == hi);
        if (rank_ != size_ - 1) CHECK(plan.by_rank == NULL && plan.send_comm == MPI_COMM_NULL);
    }
    /* The root's c and d are replaced by 0 before any check: NaN there plans. */
    divload_return_worker odd = costs_of(rank_);
    if (rank_ == 0) odd.comm_per_item = odd.return_per_item = NAN;
    divload_mpi_returns_plan plan;
    CHECK(divload_mpi_returns_plan_create(MPI_COMM_WORLD, 0, &odd, 100, DIVLOAD_SCHEDULE_BEST,
                                          DIVLOAD_PORT_FULL_DUPLEX, &plan) == DIVLOAD_OK);
    divload_mpi_returns_plan_free(&plan);

    /* Ranks with no items were exercised (they skip the scatter's data and the gather). */
    if (rank_ == 0) CHECK(idle_ranks > 0);
    char passed[160];
    snprintf(passed, sizeof passed,
             " (%d plans: best, LIFO, FIFO; scatter, ordered gather, arrival order, %d ranks with no items; "
             "failures on every rank)",
             cases, idle_ranks);
    return finish("test_returns", passed);
}
