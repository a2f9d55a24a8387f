/* divload_mpi.h: balanced MPI_Scatterv with libdivload, in a few calls; with return
 * messages, the results gathered back on the root in the planned return order
 * (divload_mpi_returns_plan_create, divload_mpi_gatherv_ordered: see below).
 *
 * Header-only (static inline functions); include it after <mpi.h> is available and link
 * libdivload. Hand-written, not generated.
 *
 *     divload_worker me = {0};                 // or measured: divload_mpi_calibrate(...)
 *     me.comp_per_item = seconds_per_record;   // this rank's own cost
 *     me.comm_per_item = link_seconds_per_record;
 *     divload_mpi_plan plan;
 *     int st = divload_mpi_plan_create(MPI_COMM_WORLD, 0, &me, n, NULL, &plan);
 *     if (st != DIVLOAD_OK) { ... }            // same status on every rank
 *     recv = malloc(plan.my_count * sizeof(record));
 *     divload_mpi_scatterv(&plan, records, record_type, recv);
 *     ...                                       // process plan.my_count records
 *     divload_mpi_plan_free(&plan);
 *
 * What happens: every rank contributes its costs (MPI_Allgather), the root plans with
 * libdivload and broadcasts counts, displacements and send positions, and every rank
 * joins `send_comm`, a communicator with the same processes ranked by their position in
 * the send order (MPI_Comm_split with the position as key). The scatter runs on
 * `send_comm`, so an MPI whose Scatterv serves ranks in order serves them in the planned
 * order (decreasing bandwidth, genaud2003 Thm 3). The root's buffer holds the items in
 * their original order; rank r of `comm` receives items [my_displacement,
 * my_displacement + my_count).
 *
 * Collective calls: every rank of `comm` must call create, scatterv and free together.
 *
 * Iterative codes on several clusters (heien's extended LogP, "model": "multicluster"):
 * divload_mpi_multicluster_calibrate measures the fast and slow links,
 * divload_mpi_multicluster_json writes the document, divload_mpi_multicluster_plan_create
 * plans it (see the section near the end).
 *
 * Iterative codes on a ring of ranks (legrand2003, "model": "ring"):
 * divload_mpi_ring_calibrate measures cycle times and a cost matrix between all ranks,
 * divload_mpi_ring_json writes the document, divload_mpi_ring_create plans it with
 * divload_plan_shares and builds a periodic ring communicator in ring order (see its
 * section, after the multi-cluster one).
 *
 * The scatter in installments (the root sends chunks so that workers compute while it
 * still sends; memory caps, release times): divload_mpi_installments_create and
 * divload_mpi_installments_scatter, in divload_mpi_installments.h (included here).
 *
 * Batches whose cost is not linear in their size, on ranks of different speeds (cerin2006,
 * "model": "partition"): divload_mpi_partition_plan plans each rank's share from its
 * speed or its measured timings, divload_mpi_partition_splitters and
 * divload_mpi_partition_rebalance give a sample sort exactly those shares (the last
 * section).
 */
#ifndef DIVLOAD_MPI_H
#define DIVLOAD_MPI_H

#include <limits.h>
#include <locale.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "divload.h"

/* poll(NULL, 0, ms) sleeps on POSIX systems; see divload_mpi_quiet_barrier_. */
#if defined(__unix__) || defined(__APPLE__)
#include <poll.h>
#define DIVLOAD_MPI_CAN_SLEEP_ 1
#else
#define DIVLOAD_MPI_CAN_SLEEP_ 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A plan, known on every rank of the communicator it was made on. */
typedef struct divload_mpi_plan {
    MPI_Comm comm;          /* the communicator the plan was made on (not owned) */
    MPI_Comm send_comm;     /* the same processes ranked by send position (owned) */
    int root;               /* the root's rank in comm */
    int send_root;          /* the root's rank in send_comm */
    int size;               /* number of ranks */
    int my_position;        /* this rank's position in the send order = its rank in send_comm */
    int my_count;           /* items this rank receives */
    int my_displacement;    /* offset of its items in the root's buffer */
    double my_predicted_finish; /* predicted finish time, seconds after the scatter starts */
    int *counts;            /* [size] counts by rank of send_comm (for MPI_Scatterv) */
    int *displs;            /* [size] displacements by rank of send_comm */
    int *positions;         /* [size] send position of each rank of comm */
    int *counts_by_rank;    /* [size] counts by rank of comm */
    int *displs_by_rank;    /* [size] displacements by rank of comm */
    double *predicted_finish; /* [size] predicted finish time of each rank of comm */
    divload_worker *workers;  /* [size] the costs planned with, by rank of comm (the root's comm costs 0) */
    divload_summary summary;  /* makespan, bound, even-split makespan, ... */
} divload_mpi_plan;

static inline void divload_mpi_plan_release_(divload_mpi_plan *p) {
    free(p->counts);
    free(p->displs);
    free(p->positions);
    free(p->counts_by_rank);
    free(p->displs_by_rank);
    free(p->predicted_finish);
    free(p->workers);
    p->counts = p->displs = p->positions = p->counts_by_rank = p->displs_by_rank = NULL;
    p->predicted_finish = NULL;
    p->workers = NULL;
}

/* calloc with the overflow check of count * size made here, not left to the C library:
 * NULL when the product exceeds SIZE_MAX. */
static inline void *divload_mpi_alloc_(size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    return calloc(count, size);
}

/* Whether `ok` holds on every rank of `comm` (collective): what each rank allocated is
   agreed on before any rank goes on, so that all take the same branch and none waits in
   a collective the others left. */
static inline int divload_mpi_all_ok_(int ok, MPI_Comm comm) {
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    return all_ok;
}

/* Plans the scatter of `items` items held by `root` over all ranks of `comm`.
 *
 * `my_costs` are this rank's costs. The root's comm_latency and comm_per_item are
 * replaced by 0 before anything checks them (the scatter model never charges the root
 * for its own part, which is not sent), so any value is accepted there; `plan.workers`
 * holds the costs planned with. `options` may be NULL for the defaults and only matters
 * on the root.
 *
 * Returns DIVLOAD_OK or a status, the same on every rank: the planner's (on the root,
 * divload_last_error_message() explains), DIVLOAD_INVALID_INPUT for `root` outside
 * [0, size), DIVLOAD_NULL_PARAMETER when `my_costs` or `plan` is NULL on any rank,
 * DIVLOAD_OUT_OF_MEMORY when any rank cannot allocate the plan, DIVLOAD_OVERFLOW for
 * items beyond INT_MAX (MPI_Scatterv takes int counts). On failure `plan` (if not NULL)
 * holds nothing to free. Collective over `comm`: every rank passes the same `root`. */
static inline int divload_mpi_plan_create(MPI_Comm comm, int root, const divload_worker *my_costs,
                                          long long items, const divload_options *options,
                                          divload_mpi_plan *plan) {
    int rank, size, status = DIVLOAD_OK;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (plan != NULL) {
        memset(plan, 0, sizeof *plan);
        plan->comm = comm;
        plan->send_comm = MPI_COMM_NULL;
        plan->root = root;
        plan->size = size;
    }
    if (root < 0 || root >= size) return DIVLOAD_INVALID_INPUT; /* the same on every rank */

    const size_t n = (size_t)size;
    /* One allreduce settles the arguments and the allocations of every rank: a NULL on
       one rank then fails them all instead of leaving the others in a collective. */
    int ok[2] = {plan != NULL && my_costs != NULL, 0}, all_ok[2] = {0, 0};
    if (ok[0]) {
        plan->counts = (int *)divload_mpi_alloc_(n, sizeof(int));
        plan->displs = (int *)divload_mpi_alloc_(n, sizeof(int));
        plan->positions = (int *)divload_mpi_alloc_(n, sizeof(int));
        plan->counts_by_rank = (int *)divload_mpi_alloc_(n, sizeof(int));
        plan->displs_by_rank = (int *)divload_mpi_alloc_(n, sizeof(int));
        plan->predicted_finish = (double *)divload_mpi_alloc_(n, sizeof(double));
        plan->workers = (divload_worker *)divload_mpi_alloc_(n, sizeof(divload_worker));
        ok[1] = plan->counts && plan->displs && plan->positions && plan->counts_by_rank && plan->displs_by_rank &&
                plan->predicted_finish && plan->workers;
    }
    MPI_Allreduce(ok, all_ok, 2, MPI_INT, MPI_LAND, comm);
    if (!all_ok[0] || !all_ok[1]) {
        if (plan != NULL) divload_mpi_plan_release_(plan);
        return all_ok[0] ? DIVLOAD_OUT_OF_MEMORY : DIVLOAD_NULL_PARAMETER;
    }

    double mine[4] = {my_costs->comm_latency, my_costs->comm_per_item, my_costs->comp_latency,
                      my_costs->comp_per_item};
    if (rank == root) mine[0] = mine[1] = 0.0;
    MPI_Allgather(mine, 4, MPI_DOUBLE, plan->workers, 4, MPI_DOUBLE, comm);

    if (rank == root) {
        if (items < 0 || items > INT_MAX) {
            status = items < 0 ? DIVLOAD_INVALID_INPUT : DIVLOAD_OVERFLOW;
        } else {
            divload_assignment *a = (divload_assignment *)divload_mpi_alloc_(n, sizeof(divload_assignment));
            status = a == NULL ? (int)DIVLOAD_OUT_OF_MEMORY
                               : (int)divload_plan(plan->workers, n, (size_t)root, (uint64_t)items,
                                                   options, a, n, &plan->summary);
            if (status == DIVLOAD_OK) {
                for (int k = 0; k < size; k++) {
                    int r = (int)a[k].rank;
                    plan->positions[r] = k;
                    plan->counts_by_rank[r] = (int)a[k].count;
                    plan->displs_by_rank[r] = (int)a[k].displacement;
                    plan->predicted_finish[r] = a[k].finish;
                }
            }
            free(a);
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, root, comm);
    if (status != DIVLOAD_OK) {
        divload_mpi_plan_release_(plan);
        return status;
    }
    MPI_Bcast(plan->positions, size, MPI_INT, root, comm);
    MPI_Bcast(plan->counts_by_rank, size, MPI_INT, root, comm);
    MPI_Bcast(plan->displs_by_rank, size, MPI_INT, root, comm);
    MPI_Bcast(plan->predicted_finish, size, MPI_DOUBLE, root, comm);
    /* The summary is plain data; all ranks of one job share its layout. */
    MPI_Bcast(&plan->summary, (int)sizeof plan->summary, MPI_BYTE, root, comm);

    for (int r = 0; r < size; r++) {
        plan->counts[plan->positions[r]] = plan->counts_by_rank[r];
        plan->displs[plan->positions[r]] = plan->displs_by_rank[r];
    }
    plan->my_position = plan->positions[rank];
    plan->my_count = plan->counts_by_rank[rank];
    plan->my_displacement = plan->displs_by_rank[rank];
    plan->my_predicted_finish = plan->predicted_finish[rank];
    plan->send_root = plan->positions[root];
    MPI_Comm_split(comm, 0, plan->my_position, &plan->send_comm);
    return DIVLOAD_OK;
}

/* MPI_Scatterv of the plan on send_comm: the root sends `sendbuf` (all items, original
 * order, `type` each); every rank receives its `my_count` items into `recvbuf`. Returns
 * the MPI error code. Collective over the plan's communicator. */
static inline int divload_mpi_scatterv(const divload_mpi_plan *plan, const void *sendbuf, MPI_Datatype type,
                                       void *recvbuf) {
    return MPI_Scatterv(sendbuf, plan->counts, plan->displs, type, recvbuf, plan->my_count, type,
                        plan->send_root, plan->send_comm);
}

/* Frees the plan's arrays and send_comm. Collective (MPI_Comm_free). */
static inline void divload_mpi_plan_free(divload_mpi_plan *plan) {
    if (plan == NULL) return;
    if (plan->send_comm != MPI_COMM_NULL) MPI_Comm_free(&plan->send_comm);
    divload_mpi_plan_release_(plan);
}

/* ------------------------------------------------------------------------------------
 * Results back to the root, in the planned return order (the return-message model).
 *
 *     divload_return_worker me = {link_s_per_item, compute_s_per_item, result_s_per_item};
 *     divload_mpi_returns_plan plan;
 *     int st = divload_mpi_returns_plan_create(MPI_COMM_WORLD, 0, &me, n, DIVLOAD_SCHEDULE_BEST,
 *                                              DIVLOAD_PORT_FULL_DUPLEX, &plan);
 *     if (st != DIVLOAD_OK) { ... }            // same status on every rank
 *     divload_mpi_returns_scatterv(&plan, items, item_type, mine);
 *     ...                                       // results[j] for mine[j], plan.my_count of them
 *     divload_mpi_gatherv_ordered(&plan, results, result_type, all_results, NULL, NULL);
 *     divload_mpi_returns_plan_free(&plan);
 *
 * Every rank contributes its costs c, w, d (seconds per item to receive, to process, to
 * send its results back); the root's c and d are taken as 0 (its part is copied
 * locally). The root plans with divload_plan_returns and broadcasts every rank's
 * assignment: count, displacement (contiguous in send order), send and return positions
 * and predicted times. The scatter runs on `send_comm` (ranks ordered by send position,
 * as for divload_mpi_scatterv). The gather is point-to-point on `send_comm`: the root
 * posts one blocking receive at a time, in return order, straight into each rank's
 * displacement of the result buffer, so rank r's results land only after those of every
 * rank that returns before it; the other ranks send when they are done. Ranks with no
 * items send nothing. The root's own results are copied with an MPI_Sendrecv to itself
 * (any datatype), or not at all with MPI_IN_PLACE.
 *
 * The model assumes the root serves sends and receives while it computes its own part;
 * a single-threaded root computes between the scatter and the gather, so the predicted
 * times are a lower estimate there. Collective calls: every rank of `comm` must call
 * create, scatterv, gatherv_ordered and free together.
 * ------------------------------------------------------------------------------------ */

/* The tag of the result messages on the plan's own `send_comm`. */
#define DIVLOAD_MPI_RETURN_TAG 0x6476

/* A plan with return messages, known on every rank of the communicator it was made on. */
typedef struct divload_mpi_returns_plan {
    MPI_Comm comm;          /* the communicator the plan was made on (not owned) */
    MPI_Comm send_comm;     /* the same processes ranked by send position (owned) */
    int root;               /* the root's rank in comm */
    int send_root;          /* the root's rank in send_comm */
    int size;               /* number of ranks */
    int my_position;        /* this rank's send position = its rank in send_comm */
    int my_return_position; /* this rank's position in the return order (0 returns first) */
    int my_count;           /* items this rank receives, and results it returns */
    int my_displacement;    /* offset of its items (and results) in the root's buffers */
    double my_predicted_computed;   /* when it has processed them, s after the first send */
    double my_predicted_return_end; /* when its results are back at the root */
    int *counts;            /* [size] counts by rank of send_comm (for MPI_Scatterv) */
    int *displs;            /* [size] displacements by rank of send_comm */
    int *return_order;      /* [size] rank of comm at each return position */
    divload_return_assignment *by_rank; /* [size] each rank's assignment, by rank of comm */
    divload_return_worker *workers;     /* [size] the costs planned with, by rank of comm */
    divload_returns_summary summary;    /* makespan, bounds, even split, ... */
} divload_mpi_returns_plan;

static inline void divload_mpi_returns_plan_release_(divload_mpi_returns_plan *p) {
    free(p->counts);
    free(p->displs);
    free(p->return_order);
    free(p->by_rank);
    free(p->workers);
    p->counts = p->displs = p->return_order = NULL;
    p->by_rank = NULL;
    p->workers = NULL;
}

/* Plans the scatter of `items` items held by `root` over all ranks of `comm`, with the
 * results coming back to the root: `schedule` is DIVLOAD_SCHEDULE_BEST, _LIFO or _FIFO,
 * `port` DIVLOAD_PORT_FULL_DUPLEX or _HALF_DUPLEX (both only read on the root).
 *
 * `my_costs` are this rank's costs (the root's comm_per_item and return_per_item are
 * replaced by 0 before anything checks them). Returns DIVLOAD_OK or a status, the same
 * on every rank: the planner's (on the root, divload_last_error_message() explains),
 * DIVLOAD_INVALID_INPUT for `root` outside [0, size), DIVLOAD_NULL_PARAMETER when
 * `my_costs` or `plan` is NULL on any rank, DIVLOAD_OUT_OF_MEMORY when any rank cannot
 * allocate the plan, DIVLOAD_OVERFLOW for items beyond INT_MAX (MPI counts are int). On
 * failure `plan` (if not NULL) holds nothing to free. Collective: every rank passes the
 * same `root`. */
static inline int divload_mpi_returns_plan_create(MPI_Comm comm, int root, const divload_return_worker *my_costs,
                                                  long long items, uint32_t schedule, uint32_t port,
                                                  divload_mpi_returns_plan *plan) {
    int rank, size, status = DIVLOAD_OK;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (plan != NULL) {
        memset(plan, 0, sizeof *plan);
        plan->comm = comm;
        plan->send_comm = MPI_COMM_NULL;
    }
    if (root < 0 || root >= size) return DIVLOAD_INVALID_INPUT; /* the same on every rank */
    const size_t n = (size_t)size;
    /* As in divload_mpi_plan_create: one allreduce for the arguments and allocations. */
    int ok[2] = {plan != NULL && my_costs != NULL, 0}, all_ok[2] = {0, 0};
    if (ok[0]) {
        plan->root = root;
        plan->size = size;
        plan->counts = (int *)divload_mpi_alloc_(n, sizeof(int));
        plan->displs = (int *)divload_mpi_alloc_(n, sizeof(int));
        plan->return_order = (int *)divload_mpi_alloc_(n, sizeof(int));
        plan->by_rank = (divload_return_assignment *)divload_mpi_alloc_(n, sizeof(divload_return_assignment));
        plan->workers = (divload_return_worker *)divload_mpi_alloc_(n, sizeof(divload_return_worker));
        ok[1] = plan->counts && plan->displs && plan->return_order && plan->by_rank && plan->workers;
    }
    MPI_Allreduce(ok, all_ok, 2, MPI_INT, MPI_LAND, comm);
    if (!all_ok[0] || !all_ok[1]) {
        if (plan != NULL) divload_mpi_returns_plan_release_(plan);
        return all_ok[0] ? DIVLOAD_OUT_OF_MEMORY : DIVLOAD_NULL_PARAMETER;
    }

    double mine[3] = {my_costs->comm_per_item, my_costs->comp_per_item, my_costs->return_per_item};
    if (rank == root) mine[0] = mine[2] = 0.0;
    MPI_Allgather(mine, 3, MPI_DOUBLE, plan->workers, 3, MPI_DOUBLE, comm);

    if (rank == root) {
        if (items < 0 || items > INT_MAX) {
            status = items < 0 ? DIVLOAD_INVALID_INPUT : DIVLOAD_OVERFLOW;
        } else {
            divload_return_assignment *a = (divload_return_assignment *)divload_mpi_alloc_(n, sizeof *a);
            status = a == NULL ? (int)DIVLOAD_OUT_OF_MEMORY
                               : (int)divload_plan_returns(plan->workers, n, (uint64_t)items, schedule, port, a,
                                                           n, &plan->summary);
            if (status == DIVLOAD_OK) {
                for (size_t k = 0; k < n; k++) plan->by_rank[a[k].rank] = a[k];
            }
            free(a);
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, root, comm);
    if (status != DIVLOAD_OK) {
        divload_mpi_returns_plan_release_(plan);
        return status;
    }
    /* Plain data; all ranks of one job share its layout. One element per rank rather than
       n * sizeof bytes, which overflows an int count beyond about 20 million ranks. */
    MPI_Datatype assignment_type;
    MPI_Type_contiguous((int)sizeof(divload_return_assignment), MPI_BYTE, &assignment_type);
    MPI_Type_commit(&assignment_type);
    MPI_Bcast(plan->by_rank, size, assignment_type, root, comm);
    MPI_Type_free(&assignment_type);
    MPI_Bcast(&plan->summary, (int)sizeof plan->summary, MPI_BYTE, root, comm);

    for (int r = 0; r < size; r++) {
        const divload_return_assignment *a = &plan->by_rank[r];
        plan->counts[a->send_position] = (int)a->count;
        plan->displs[a->send_position] = (int)a->displacement;
        plan->return_order[a->return_position] = r;
    }
    const divload_return_assignment *me = &plan->by_rank[rank];
    plan->my_position = (int)me->send_position;
    plan->my_return_position = (int)me->return_position;
    plan->my_count = (int)me->count;
    plan->my_displacement = (int)me->displacement;
    plan->my_predicted_computed = me->computed;
    plan->my_predicted_return_end = me->return_end;
    plan->send_root = (int)plan->by_rank[root].send_position;
    MPI_Comm_split(comm, 0, plan->my_position, &plan->send_comm);
    return DIVLOAD_OK;
}

/* MPI_Scatterv of the plan on send_comm, as divload_mpi_scatterv: the root sends
 * `sendbuf` (all items, original order); every rank receives its `my_count` items into
 * `recvbuf`. Returns the MPI error code. Collective. */
static inline int divload_mpi_returns_scatterv(const divload_mpi_returns_plan *plan, const void *sendbuf,
                                               MPI_Datatype type, void *recvbuf) {
    return MPI_Scatterv(sendbuf, plan->counts, plan->displs, type, recvbuf, plan->my_count, type,
                        plan->send_root, plan->send_comm);
}

/* Called on the root as soon as `rank`'s `count` results are in place at `displacement`
 * of the result buffer, in return order: the root may use them before the rest arrive. */
typedef void (*divload_mpi_arrival_fn)(void *ctx, int rank, int count, int displacement);

/* Collects every rank's results on the root in the planned return order. Each rank
 * passes its `my_count` results of `type` (one per item, in item order) in `sendbuf`;
 * the root receives rank r's results at element by_rank[r].displacement of `recvbuf`
 * (room for all items), one rank after the other in return order (blocking MPI_Recv on
 * send_comm; ranks with no items are skipped), calling `on_arrival(ctx, ...)` after each
 * if it is not NULL. The root may pass MPI_IN_PLACE as `sendbuf` when its results are
 * already at its displacement of `recvbuf`. `recvbuf` matters only on the root. Returns
 * the first MPI error code, or MPI_SUCCESS. Collective over the plan's communicator. */
static inline int divload_mpi_gatherv_ordered(const divload_mpi_returns_plan *plan, const void *sendbuf,
                                              MPI_Datatype type, void *recvbuf,
                                              divload_mpi_arrival_fn on_arrival, void *ctx) {
    int send_rank;
    MPI_Comm_rank(plan->send_comm, &send_rank);
    if (send_rank != plan->send_root) {
        if (plan->my_count == 0) return MPI_SUCCESS;
        return MPI_Send(sendbuf, plan->my_count, type, plan->send_root, DIVLOAD_MPI_RETURN_TAG, plan->send_comm);
    }
    MPI_Aint lb, extent;
    int err = MPI_Type_get_extent(type, &lb, &extent);
    if (err != MPI_SUCCESS) return err;
    for (int t = 0; t < plan->size; t++) {
        const int r = plan->return_order[t];
        const divload_return_assignment *a = &plan->by_rank[r];
        if (a->count == 0) continue;
        char *dst = (char *)recvbuf + (MPI_Aint)a->displacement * extent;
        if (r == plan->root) {
            if (sendbuf != MPI_IN_PLACE) {
                err = MPI_Sendrecv(sendbuf, (int)a->count, type, send_rank, DIVLOAD_MPI_RETURN_TAG, dst,
                                   (int)a->count, type, send_rank, DIVLOAD_MPI_RETURN_TAG, plan->send_comm,
                                   MPI_STATUS_IGNORE);
            }
        } else {
            err = MPI_Recv(dst, (int)a->count, type, (int)a->send_position, DIVLOAD_MPI_RETURN_TAG,
                           plan->send_comm, MPI_STATUS_IGNORE);
        }
        if (err != MPI_SUCCESS) return err;
        if (on_arrival != NULL) on_arrival(ctx, r, (int)a->count, (int)a->displacement);
    }
    return MPI_SUCCESS;
}

/* Frees the plan's arrays and send_comm. Collective (MPI_Comm_free). */
static inline void divload_mpi_returns_plan_free(divload_mpi_returns_plan *plan) {
    if (plan == NULL) return;
    if (plan->send_comm != MPI_COMM_NULL) MPI_Comm_free(&plan->send_comm);
    divload_mpi_returns_plan_release_(plan);
}

/* The bytes that `count` (>= 1) consecutive elements of `type` touch, from the lowest to
 * the highest, into `*bytes`, and where the first element starts relative to the lowest
 * into `*start`: a buffer `buf` of `*bytes` bytes holds them from `buf + *start` (the MPI
 * standard's recipe for MPI_Type_get_true_extent). The extent alone is not enough: a
 * column resized to one element spans (count - 1) * extent + true extent bytes, and a
 * true lower bound below 0 puts data before the start. Returns MPI_SUCCESS, MPI_ERR_TYPE
 * when the type cannot be queried, or MPI_ERR_NO_MEM when the span exceeds a quarter of
 * the address space (so that no sum below can overflow). */
static inline int divload_mpi_span_(MPI_Datatype type, int count, size_t *bytes, MPI_Aint *start) {
    MPI_Aint lb, extent, true_lb, true_extent;
    if (count < 1 || MPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
        MPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    const MPI_Aint limit = (MPI_Aint)(PTRDIFF_MAX / 4), steps = (MPI_Aint)count - 1;
    if (true_extent < 0 || true_extent > limit || true_lb < -limit || true_lb > limit)
        return MPI_ERR_NO_MEM;
    if (steps > 0 && (extent > limit / steps || extent < -(limit / steps))) return MPI_ERR_NO_MEM;
    const MPI_Aint step = extent * steps;
    const MPI_Aint low = true_lb + (step < 0 ? step : 0);
    *bytes = (size_t)(true_extent + (step < 0 ? -step : step));
    *start = -low;
    return MPI_SUCCESS;
}

/* Your computation, for calibration: process `items` items of the sample in `ctx`. */
typedef void (*divload_mpi_compute_fn)(void *ctx, int items);

/* Measures this rank's costs, for divload_mpi_plan_create.
 *
 * Computation: every rank times compute(ctx, k) for k = sample_items / 2 and sample_items
 * (best of 3 each) and fits comp_latency + comp_per_item * k. Communication: the root
 * sends k items of `type` to each rank in turn, which answers with an empty message, and
 * fits comm_latency + comm_per_item * k to the best of 3 round trips; the root's own
 * communication cost is 0. The messages go over a duplicate of `comm`, so they never
 * match the caller's own messages on `comm`. The sample buffer covers the true extent of
 * sample_items elements of `type` (any datatype: resized, non-contiguous, negative lower
 * bound); its contents are zeros.
 *
 * Returns MPI_SUCCESS or an MPI error code, the same on every rank: MPI_ERR_ROOT for
 * `root` outside [0, size), MPI_ERR_ARG for sample_items < 2 or a NULL `compute` or
 * `my_costs` on any rank, MPI_ERR_TYPE when `type` cannot be queried, MPI_ERR_NO_MEM when
 * a rank cannot allocate the sample; `my_costs` is written only on success. Collective
 * over `comm`: every rank passes the same `root` and `sample_items`. */
static inline int divload_mpi_calibrate(MPI_Comm comm, int root, MPI_Datatype type, int sample_items,
                                        divload_mpi_compute_fn compute, void *ctx,
                                        divload_worker *my_costs) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (root < 0 || root >= size) return MPI_ERR_ROOT; /* the same on every rank */
    MPI_Comm dup;
    int err = MPI_Comm_dup(comm, &dup);
    if (err != MPI_SUCCESS) return err;

    /* What fails on this rank, the most serious highest; one allreduce agrees on the
       worst, so that every rank returns the same code before any point-to-point call. */
    const int fine = 0, no_mem = 1, bad_type = 2, bad_argument = 3;
    int problem = fine, worst = fine;
    size_t bytes = 0;
    MPI_Aint start = 0;
    char *buf = NULL;
    double *links = NULL;
    if (sample_items < 2 || compute == NULL || my_costs == NULL) {
        problem = bad_argument;
    } else {
        err = divload_mpi_span_(type, sample_items, &bytes, &start);
        problem = err == MPI_ERR_TYPE ? bad_type : err != MPI_SUCCESS ? no_mem : fine;
    }
    if (problem == fine) {
        /* One byte more: calloc(0) may return NULL. */
        buf = (char *)divload_mpi_alloc_(bytes + 1, 1);
        links = rank == root ? (double *)divload_mpi_alloc_((size_t)size, 2 * sizeof(double)) : NULL;
        if (buf == NULL || (rank == root && links == NULL)) problem = no_mem;
    }
    MPI_Allreduce(&problem, &worst, 1, MPI_INT, MPI_MAX, dup);
    if (worst != fine) {
        free(buf);
        free(links);
        MPI_Comm_free(&dup);
        return worst == bad_argument ? MPI_ERR_ARG : worst == bad_type ? MPI_ERR_TYPE : MPI_ERR_NO_MEM;
    }
    char *sample = buf + start;

    const int k[2] = {sample_items / 2, sample_items};
    double t[2];
    for (int s = 0; s < 2; s++) {
        double best = 0.0;
        for (int rep = 0; rep < 3; rep++) {
            double t0 = MPI_Wtime();
            compute(ctx, k[s]);
            double dt = MPI_Wtime() - t0;
            if (rep == 0 || dt < best) best = dt;
        }
        t[s] = best;
    }
    /* A straight line through the two sizes; noise can make it fall, then it is taken
     * through the origin instead. */
    double slope = (t[1] - t[0]) / (double)(k[1] - k[0]);
    double intercept = t[1] - slope * k[1];
    if (!(slope > 0.0) || intercept < 0.0) {
        slope = t[1] / (double)k[1];
        intercept = 0.0;
    }
    if (!(slope > 0.0)) slope = 1e-12; /* a compute function too fast to time */

    for (int r = 0; r < size; r++) {
        if (r == root) continue;
        for (int s = 0; s < 2; s++) {
            double best = 0.0;
            for (int rep = 0; rep < 3; rep++) {
                if (rank == root) {
                    double t0 = MPI_Wtime();
                    MPI_Send(sample, k[s], type, r, 0, dup);
                    MPI_Recv(NULL, 0, MPI_BYTE, r, 1, dup, MPI_STATUS_IGNORE);
                    double dt = MPI_Wtime() - t0;
                    if (rep == 0 || dt < best) best = dt;
                } else if (rank == r) {
                    MPI_Recv(sample, k[s], type, root, 0, dup, MPI_STATUS_IGNORE);
                    MPI_Send(NULL, 0, MPI_BYTE, root, 1, dup);
                }
            }
            t[s] = best;
        }
        if (rank == root) {
            double sl = (t[1] - t[0]) / (double)(k[1] - k[0]);
            double lat = t[0] - sl * k[0];
            if (!(sl > 0.0) || lat < 0.0) {
                sl = t[1] / (double)k[1];
                lat = 0.0;
            }
            links[2 * r] = lat;
            links[2 * r + 1] = sl > 0.0 ? sl : 0.0;
        }
    }
    double mine[2] = {0.0, 0.0};
    MPI_Scatter(links, 2, MPI_DOUBLE, mine, 2, MPI_DOUBLE, root, dup);
    MPI_Comm_free(&dup);
    my_costs->comp_per_item = slope;
    my_costs->comp_latency = intercept;
    my_costs->comm_latency = rank == root ? 0.0 : mine[0];
    my_costs->comm_per_item = rank == root ? 0.0 : mine[1];
    free(links);
    free(buf);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------------------------
 * Several clusters: heien's extended LogP ("model": "multicluster"), measured by MPI.
 *
 *     divload_mpi_multicluster cal;
 *     divload_mpi_multicluster_calibrate(MPI_COMM_WORLD, DIVLOAD_MPI_COLOUR_HOST, NULL, &cal);
 *     char doc[4096];
 *     size_t len;
 *     divload_mpi_multicluster_json(&cal, "{\"pattern\": \"ring\", \"lattice\": 8192, "
 *                                   "\"flip_time\": 0.55e-6, \"steps\": 20}", 4, doc, sizeof doc, &len);
 *     divload_mpi_multicluster_plan plan;
 *     if (divload_mpi_multicluster_plan_create(&cal, 0, doc, len, &plan) != DIVLOAD_OK) { ... }
 *     MPI_Scatterv(columns, plan.counts, plan.displs, column_type, mine, plan.my_count,
 *                  column_type, 0, MPI_COMM_WORLD);
 *     ...                                       // plan.my_count columns from plan.my_displacement
 *     divload_mpi_multicluster_plan_free(&plan);
 *     divload_mpi_multicluster_free(&cal);
 *
 * Clusters. Ranks with the same colour form a cluster; a rank passing
 * DIVLOAD_MPI_COLOUR_HOST joins the ranks on the same host (MPI_Get_processor_name).
 * Clusters are numbered by their lowest rank (rank 0 is in cluster 0), the ranks of a
 * cluster by rank; the document lists the clusters in that order, so its j-th processor
 * is `processor_rank[j]`. Names: "colour 3" for a colour, the host name for a host.
 *
 * The estimator. For each measured pair of ranks (a, b), b echoes what a sends, a message
 * of s = small_bytes and one of m = large_bytes bytes, `repetitions` timed round trips
 * of each after one untimed one; every figure is the minimum over the repetitions, the
 * time of a transfer nothing interrupted (another process taking the core, a page
 * fault): the cost of the network and the processors, not the noise of the node:
 *   o_s   the time a spends inside MPI_Send of the small message (send overhead);
 *   o_r   the time b spends inside MPI_Recv of a small message it has already seen with
 *         MPI_Probe (receive overhead);
 *   h(n)  half the round trip of an n-byte message.
 * In heien's model (§2, and eqs. 2-3: a border exchange of 4 words costs L + 2o + 4g) a
 * message of n units takes h(n) = L + 2o + n g, so
 *   o = (o_s + o_r) / 2,   g = (h(m) - h(s)) / (m - s) per byte,   L = h(s) - 2o - s g.
 * L and g are taken as 0 if noise makes them negative. Each link kind's L, o and g are
 * the medians over its pairs. Fast pairs: the first two ranks of each cluster of two or
 * more ranks; slow pairs: the first ranks of clusters c and c + 1; at most `max_pairs`
 * of each, measured one pair at a time on a duplicate of `comm` while the other ranks
 * sleep in a barrier (so they leave the cores to the pair on a node with more ranks than
 * cores). The pairs' raw timings are summed over all ranks (each written by one rank),
 * so every rank derives the same numbers.
 *
 * Units. g is measured per byte. heien's g, and the document's "gap", is per word of the
 * application's messages (eqs. 2-3 charge 4g for 4 border spins, eq. 10 g·D·K·F for K·F
 * objects of D words: LogGP's per-word G rather than LogP's gap between messages), so
 * divload_mpi_multicluster_json multiplies it by the word size the caller gives.
 *
 * Links not measured. With a single cluster there is no slow pair: `slow.measured` is 0
 * and the slow link carries the fast link's values. The model never uses the slow link
 * then (a ring of one cluster closes on itself, every processor with two fast
 * neighbours; all-to-all with one cluster has no slow messages), but a what_if addition
 * would: set it by hand before adding one. Likewise, when no cluster has two ranks,
 * `fast.measured` is 0 and the fast link carries the slow values, which a model of
 * one-processor clusters never uses. A single rank measures nothing (all zeros).
 * ------------------------------------------------------------------------------------ */

/* The colour that groups ranks by host name (MPI_Get_processor_name). Other colours
 * must be >= 0. */
#define DIVLOAD_MPI_COLOUR_HOST (-1)
/* Bytes of a cluster's name, NUL included. */
#define DIVLOAD_MPI_NAME_LEN (MPI_MAX_PROCESSOR_NAME + 16)
/* The tag of the calibration's messages (on its own duplicate of the communicator). */
#define DIVLOAD_MPI_CALIBRATION_TAG 0x6477

/* How to measure; zeros (or a NULL pointer) are the defaults. Read on rank 0 of the
 * communicator only, so every rank measures alike. */
typedef struct divload_mpi_calibration_options {
    int small_bytes;  /* the small message, >= 1 (0: 8 bytes) */
    int large_bytes;  /* the large message, > small_bytes (0: 262144 bytes) */
    int repetitions;  /* timed round trips per size and pair, >= 1 (0: 21) */
    int max_pairs;    /* pairs measured per kind of link, >= 1 (0: 8) */
} divload_mpi_calibration_options;

/* One kind of link, measured: heien's L, o, g. Seconds; gap in seconds per byte. */
typedef struct divload_mpi_link {
    double latency;          /* L */
    double overhead;         /* o = (o_s + o_r) / 2 */
    double gap;              /* g, seconds per byte */
    double send_overhead;    /* o_s (median over the pairs) */
    double receive_overhead; /* o_r (median over the pairs) */
    int pairs;               /* pairs of ranks measured */
    int measured;            /* 1 when measured; 0 when it copies the other kind */
} divload_mpi_link;

/* A calibration, the same on every rank of the communicator it was made on. */
typedef struct divload_mpi_multicluster {
    MPI_Comm comm;          /* the communicator (not owned) */
    int size;               /* ranks = processors of the document */
    int clusters;           /* groups found */
    int my_cluster;         /* this rank's cluster */
    int my_index;           /* its index within the cluster */
    int *cluster_of;        /* [size] cluster of each rank */
    int *index_of;          /* [size] index of each rank within its cluster */
    int *cluster_sizes;     /* [clusters] ranks in each cluster */
    int *processor_rank;    /* [size] rank of the document's j-th processor */
    char *names;            /* [clusters * DIVLOAD_MPI_NAME_LEN] names, NUL-terminated */
    divload_mpi_link fast;  /* inside a cluster */
    divload_mpi_link slow;  /* between clusters */
    divload_mpi_calibration_options options; /* as measured, defaults filled in */
} divload_mpi_multicluster;

static inline void divload_mpi_multicluster_free(divload_mpi_multicluster *cal) {
    if (cal == NULL) return;
    free(cal->cluster_of);
    free(cal->index_of);
    free(cal->cluster_sizes);
    free(cal->processor_rank);
    free(cal->names);
    cal->cluster_of = cal->index_of = cal->cluster_sizes = cal->processor_rank = NULL;
    cal->names = NULL;
}

static inline int divload_mpi_cmp_double_(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double divload_mpi_min_(const double *v, int n) {
    double m = v[0];
    for (int i = 1; i < n; i++)
        if (v[i] < m) m = v[i];
    return m;
}

/* The median of v[0..n), n >= 1; sorts v. */
static inline double divload_mpi_median_(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, divload_mpi_cmp_double_);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Rank keys compared as strings, equal keys by rank (their place in one array). */
static inline int divload_mpi_cmp_key_(const void *a, const void *b) {
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    int c = strcmp(x, y);
    return c != 0 ? c : (x > y) - (x < y);
}

/* A barrier that does not hold a core while it waits: the ranks that are not being
 * measured sleep in it (1 ms at a time, where the platform can sleep), so on a node with
 * more ranks than cores they leave the cores to the pair being timed instead of
 * spinning in MPI's progress loop, where each round trip would wait for a scheduler
 * time slice (milliseconds) instead of the network. */
static inline void divload_mpi_quiet_barrier_(MPI_Comm comm) {
#if MPI_VERSION >= 3
    MPI_Request request;
    int done = 0;
    MPI_Ibarrier(comm, &request);
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    while (!done) {
#if DIVLOAD_MPI_CAN_SLEEP_
        poll(NULL, 0, 1);
#endif
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    }
#else
    MPI_Barrier(comm);
#endif
}

/* Times one pair: `a` sends, `b` echoes. Writes o_s, o_r, round trip small and large
 * into raw[0..4) on the rank that measured each (the other entries stay 0). */
static inline void divload_mpi_ping_pong_(MPI_Comm comm, int rank, int a, int b,
                                          const divload_mpi_calibration_options *opt, char *buf,
                                          double *samples, double *raw) {
    const int sizes[2] = {opt->small_bytes, opt->large_bytes};
    const int reps = opt->repetitions, tag = DIVLOAD_MPI_CALIBRATION_TAG;
    double *overheads = samples, *trips = samples + reps;
    for (int s = 0; s < 2; s++) {
        for (int k = -1; k < reps; k++) {
            if (rank == a) {
                double t0 = MPI_Wtime();
                MPI_Send(buf, sizes[s], MPI_BYTE, b, tag, comm);
                double t1 = MPI_Wtime();
                MPI_Recv(buf, sizes[s], MPI_BYTE, b, tag, comm, MPI_STATUS_IGNORE);
                double t2 = MPI_Wtime();
                if (k >= 0) {
                    overheads[k] = t1 - t0;
                    trips[k] = t2 - t0;
                }
            } else if (rank == b) {
                /* Probed first, so the timed MPI_Recv copies a message that is there:
                   the receive overhead, not the wait for the sender. */
                MPI_Probe(a, tag, comm, MPI_STATUS_IGNORE);
                double t0 = MPI_Wtime();
                MPI_Recv(buf, sizes[s], MPI_BYTE, a, tag, comm, MPI_STATUS_IGNORE);
                double t1 = MPI_Wtime();
                MPI_Send(buf, sizes[s], MPI_BYTE, a, tag, comm);
                if (k >= 0) overheads[k] = t1 - t0;
            }
        }
        if (rank == a) {
            if (s == 0) raw[0] = divload_mpi_min_(overheads, reps);
            raw[2 + s] = divload_mpi_min_(trips, reps);
        } else if (rank == b && s == 0) {
            raw[1] = divload_mpi_min_(overheads, reps);
        }
    }
}

/* heien's L, o, g of one kind of link from its pairs' raw timings (see the estimator
 * above); `work` holds 5 * pairs doubles. */
static inline divload_mpi_link divload_mpi_estimate_(const double *raw, int pairs,
                                                     const divload_mpi_calibration_options *opt,
                                                     double *work) {
    divload_mpi_link link;
    memset(&link, 0, sizeof link);
    link.pairs = pairs;
    link.measured = pairs > 0;
    if (pairs == 0) return link;
    const double s = opt->small_bytes, m = opt->large_bytes;
    double *L = work, *o = work + pairs, *g = work + 2 * pairs, *os = work + 3 * pairs, *orr = work + 4 * pairs;
    for (int p = 0; p < pairs; p++) {
        const double *r = raw + 4 * p;
        const double h_small = 0.5 * r[2], h_large = 0.5 * r[3];
        os[p] = r[0];
        orr[p] = r[1];
        o[p] = 0.5 * (r[0] + r[1]);
        g[p] = (h_large - h_small) / (m - s);
        L[p] = h_small - 2.0 * o[p] - s * g[p];
    }
    link.latency = divload_mpi_median_(L, pairs);
    link.overhead = divload_mpi_median_(o, pairs);
    link.gap = divload_mpi_median_(g, pairs);
    link.send_overhead = divload_mpi_median_(os, pairs);
    link.receive_overhead = divload_mpi_median_(orr, pairs);
    if (!(link.latency > 0.0)) link.latency = 0.0;
    if (!(link.gap > 0.0)) link.gap = 0.0;
    return link;
}

/* Groups the ranks of `comm` into clusters by `colour` (>= 0, or DIVLOAD_MPI_COLOUR_HOST
 * to group by host name; ranks may mix the two) and measures heien's L, o, g inside
 * clusters (fast) and between them (slow) by ping-pong, as described above. `options`
 * may be NULL for the defaults and is read on rank 0 only.
 *
 * Returns DIVLOAD_OK, DIVLOAD_INVALID_INPUT (a colour below 0 other than
 * DIVLOAD_MPI_COLOUR_HOST on any rank, or options out of range) or
 * DIVLOAD_OUT_OF_MEMORY, the same on every rank; on failure `cal` holds nothing to free.
 * A NULL `cal` returns DIVLOAD_NULL_PARAMETER at once (pass it on every rank or none).
 * Memory: about DIVLOAD_MPI_NAME_LEN bytes per rank for the names, during the call.
 * Collective over `comm`; free with divload_mpi_multicluster_free (local). */
static inline int divload_mpi_multicluster_calibrate(MPI_Comm comm, int colour,
                                                     const divload_mpi_calibration_options *options,
                                                     divload_mpi_multicluster *cal) {
    if (cal == NULL) return DIVLOAD_NULL_PARAMETER;
    memset(cal, 0, sizeof *cal);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    cal->comm = comm;
    cal->size = size;

    int opt[4] = {8, 1 << 18, 21, 8};
    if (rank == 0 && options != NULL) {
        const int given[4] = {options->small_bytes, options->large_bytes, options->repetitions, options->max_pairs};
        for (int i = 0; i < 4; i++)
            if (given[i] != 0) opt[i] = given[i];
    }
    MPI_Bcast(opt, 4, MPI_INT, 0, comm);
    cal->options.small_bytes = opt[0];
    cal->options.large_bytes = opt[1];
    cal->options.repetitions = opt[2];
    cal->options.max_pairs = opt[3];
    int bad = colour < 0 && colour != DIVLOAD_MPI_COLOUR_HOST;
    if (opt[0] < 1 || opt[1] <= opt[0] || opt[2] < 1 || opt[3] < 1) bad = 1;
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_LOR, comm);
    if (any_bad) return DIVLOAD_INVALID_INPUT;

    const size_t n = (size_t)size, len = DIVLOAD_MPI_NAME_LEN;
    char key[DIVLOAD_MPI_NAME_LEN];
    memset(key, 0, sizeof key);
    if (colour == DIVLOAD_MPI_COLOUR_HOST) {
        int got = 0;
        key[0] = 'h';
        MPI_Get_processor_name(key + 1, &got);
    } else {
        snprintf(key, sizeof key, "ccolour %d", colour);
    }
    const size_t max_pairs = (size_t)opt[3], pair_slots = 2 * (max_pairs < n ? max_pairs : n);
    char *keys = (char *)divload_mpi_alloc_(n, len);
    const char **sorted = (const char **)divload_mpi_alloc_(n, sizeof *sorted);
    int *group = (int *)divload_mpi_alloc_(n, sizeof(int));
    int *cluster_of_group = (int *)divload_mpi_alloc_(n, sizeof(int));
    int *offset = (int *)divload_mpi_alloc_(n, sizeof(int));
    int *fast_pair = (int *)divload_mpi_alloc_(pair_slots, sizeof(int));
    int *slow_pair = (int *)divload_mpi_alloc_(pair_slots, sizeof(int));
    cal->cluster_of = (int *)divload_mpi_alloc_(n, sizeof(int));
    cal->index_of = (int *)divload_mpi_alloc_(n, sizeof(int));
    cal->processor_rank = (int *)divload_mpi_alloc_(n, sizeof(int));
    cal->cluster_sizes = (int *)divload_mpi_alloc_(n, sizeof(int));
    int ok = keys && sorted && group && cluster_of_group && offset && fast_pair && slow_pair && cal->cluster_of &&
             cal->index_of && cal->processor_rank && cal->cluster_sizes;
    int all_ok = divload_mpi_all_ok_(ok, comm);
    if (all_ok) MPI_Allgather(key, (int)len, MPI_CHAR, keys, (int)len, MPI_CHAR, comm);

    /* Equal keys meet in sorted order: O(P log P) for any number of clusters. */
    int groups = 0, clusters = 0;
    for (size_t r = 0; all_ok && r < n; r++) {
        keys[r * len + len - 1] = '\0';
        sorted[r] = keys + r * len;
    }
    if (all_ok) qsort(sorted, n, sizeof *sorted, divload_mpi_cmp_key_);
    for (size_t k = 0; all_ok && k < n; k++) {
        if (k == 0 || strcmp(sorted[k], sorted[k - 1]) != 0) cluster_of_group[groups++] = -1;
        group[(sorted[k] - keys) / (ptrdiff_t)len] = groups - 1;
    }
    /* Walking up the ranks meets each group first at its lowest rank: clusters are
       numbered in that order, and the ranks of a cluster by rank. */
    for (int r = 0; all_ok && r < size; r++) {
        int *c = &cluster_of_group[group[r]];
        if (*c < 0) *c = clusters++;
        cal->cluster_of[r] = *c;
        cal->index_of[r] = cal->cluster_sizes[*c]++;
    }
    cal->clusters = clusters;
    /* The document lists cluster 0's processors first: offsets are prefix sums. */
    for (int c = 0, at = 0; all_ok && c < clusters; c++) {
        offset[c] = at;
        at += cal->cluster_sizes[c];
    }
    for (int r = 0; all_ok && r < size; r++) {
        cal->processor_rank[offset[cal->cluster_of[r]] + cal->index_of[r]] = r;
    }
    if (all_ok) {
        cal->my_cluster = cal->cluster_of[rank];
        cal->my_index = cal->index_of[rank];
        cal->names = (char *)divload_mpi_alloc_((size_t)clusters, len);
    }
    for (int c = 0; cal->names != NULL && c < clusters; c++) {
        const char *k = keys + (size_t)cal->processor_rank[offset[c]] * len;
        snprintf(cal->names + (size_t)c * len, len, "%s", k + 1);
    }

    /* Fast pairs inside clusters of two or more, slow pairs between neighbouring clusters. */
    int fast = 0, slow = 0;
    for (int c = 0; all_ok && c < clusters && (size_t)fast < max_pairs; c++) {
        if (cal->cluster_sizes[c] < 2) continue;
        fast_pair[2 * fast] = cal->processor_rank[offset[c]];
        fast_pair[2 * fast + 1] = cal->processor_rank[offset[c] + 1];
        fast++;
    }
    for (int c = 0; all_ok && c + 1 < clusters && (size_t)slow < max_pairs; c++) {
        slow_pair[2 * slow] = cal->processor_rank[offset[c]];
        slow_pair[2 * slow + 1] = cal->processor_rank[offset[c + 1]];
        slow++;
    }
    const int pairs = fast + slow, reps = opt[2];
    /* One element more than needed: with no pairs, calloc(0) may return NULL. The raw
       timings are summed by one MPI_Allreduce, whose count is an int: more pairs than
       that (the same number on every rank) fail as memory would. */
    const int countable = 4 * (size_t)pairs <= (size_t)INT_MAX;
    double *raw = countable ? (double *)divload_mpi_alloc_(4 * (size_t)pairs + 1, sizeof(double)) : NULL;
    double *samples = (double *)divload_mpi_alloc_(2 * (size_t)reps, sizeof(double));
    double *work = countable ? (double *)divload_mpi_alloc_(5 * (size_t)pairs + 1, sizeof(double)) : NULL;
    char *buf = (char *)divload_mpi_alloc_((size_t)opt[1], 1);
    MPI_Comm dup = MPI_COMM_NULL;
    ok = all_ok && cal->names && raw && samples && work && buf;
    all_ok = divload_mpi_all_ok_(ok, comm);
    if (all_ok) MPI_Comm_dup(comm, &dup);
    for (int p = 0; all_ok && p < pairs; p++) {
        const int *ab = p < fast ? fast_pair + 2 * p : slow_pair + 2 * (p - fast);
        /* One pair at a time: on shared nodes, concurrent pairs would time each other; the
           others wait for the next pair (or the end) in a barrier that sleeps. */
        divload_mpi_quiet_barrier_(dup);
        divload_mpi_ping_pong_(dup, rank, ab[0], ab[1], &cal->options, buf, samples, raw + 4 * p);
    }
    if (all_ok) {
        divload_mpi_quiet_barrier_(dup);
        MPI_Allreduce(MPI_IN_PLACE, raw, 4 * pairs, MPI_DOUBLE, MPI_SUM, dup);
        MPI_Comm_free(&dup);
        cal->fast = divload_mpi_estimate_(raw, fast, &cal->options, work);
        cal->slow = divload_mpi_estimate_(raw + 4 * fast, slow, &cal->options, work);
        if (!cal->slow.measured) {
            cal->slow = cal->fast;
            cal->slow.pairs = cal->slow.measured = 0;
        } else if (!cal->fast.measured) {
            cal->fast = cal->slow;
            cal->fast.pairs = cal->fast.measured = 0;
        }
    }
    free(keys);
    free(sorted);
    free(group);
    free(cluster_of_group);
    free(offset);
    free(fast_pair);
    free(slow_pair);
    free(raw);
    free(samples);
    free(work);
    free(buf);
    if (!all_ok) {
        divload_mpi_multicluster_free(cal);
        return DIVLOAD_OUT_OF_MEMORY;
    }
    return DIVLOAD_OK;
}

/* Text written twice: first only counted (buf NULL), then for real. */
typedef struct divload_mpi_text_ {
    char *buf;
    size_t cap;
    size_t len;
} divload_mpi_text_;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static inline void divload_mpi_put_(divload_mpi_text_ *t, const char *format, ...) {
    va_list args;
    va_start(args, format);
    const int room = t->buf != NULL && t->len < t->cap;
    const int n = vsnprintf(room ? t->buf + t->len : NULL, room ? t->cap - t->len : 0, format, args);
    va_end(args);
    if (n > 0) t->len += (size_t)n;
}

/* The length of the valid UTF-8 sequence that starts at `s` (1 to 4 bytes), or 0 when
 * the byte there starts none (RFC 3629 §4: no overlong forms, no surrogates, nothing
 * above U+10FFFF). Stops at the first byte that does not fit, so never reads past a NUL. */
static inline int divload_mpi_utf8_length_(const unsigned char *s) {
    const unsigned char c = s[0];
    unsigned char lo = 0x80, hi = 0xbf;
    int n;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi) return 0;
    for (int i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    return n;
}

/* A JSON string: quotes, backslashes and control characters escaped (RFC 8259 §7). A
 * JSON text is UTF-8 (§8.1), and a host name need not be: each byte that does not start
 * a valid UTF-8 sequence is read as Latin-1 and written as \u00XX, so the document
 * parses whatever the name holds. */
static inline void divload_mpi_put_string_(divload_mpi_text_ *t, const char *s) {
    divload_mpi_put_(t, "\"");
    const unsigned char *p = (const unsigned char *)s;
    while (*p != '\0') {
        const int n = divload_mpi_utf8_length_(p);
        if (n == 0 || *p < 0x20)
            divload_mpi_put_(t, "\\u%04x", *p);
        else if (*p == '"' || *p == '\\')
            divload_mpi_put_(t, "\\%c", *p);
        else
            divload_mpi_put_(t, "%.*s", n, (const char *)p);
        p += n == 0 ? 1 : n;
    }
    divload_mpi_put_(t, "\"");
}

/* A double as JSON: %.17g reads back exactly, but writes LC_NUMERIC's decimal point (a
 * comma in many locales, several bytes in some), which is replaced by '.'. Nothing else
 * in %.17g depends on the locale: only the ' flag groups thousands. */
static inline void divload_mpi_put_double_(divload_mpi_text_ *t, double v) {
    char num[64];
    const int n = snprintf(num, sizeof num, "%.17g", v);
    if (n < 0 || (size_t)n >= sizeof num) {
        /* Only a decimal point of 40 bytes or more gets here (%.17g writes at most 24
           others); null makes the planner refuse the document instead of misreading it. */
        divload_mpi_put_(t, "null");
        return;
    }
    const struct lconv *conv = localeconv();
    const char *point = conv != NULL ? conv->decimal_point : NULL;
    char *at = point != NULL && point[0] != '\0' && strcmp(point, ".") != 0 ? strstr(num, point) : NULL;
    if (at != NULL) {
        const size_t len = strlen(point);
        *at = '.';
        memmove(at + 1, at + len, strlen(at + len) + 1);
    }
    divload_mpi_put_(t, "%s", num);
}

static inline void divload_mpi_put_link_(divload_mpi_text_ *t, const char *name, const divload_mpi_link *l,
                                         size_t word_bytes) {
    divload_mpi_put_(t, "\"%s\": {\"latency\": ", name);
    divload_mpi_put_double_(t, l->latency);
    divload_mpi_put_(t, ", \"overhead\": ");
    divload_mpi_put_double_(t, l->overhead);
    divload_mpi_put_(t, ", \"gap\": ");
    divload_mpi_put_double_(t, l->gap * (double)word_bytes);
    divload_mpi_put_(t, "}");
}

static inline void divload_mpi_put_document_(divload_mpi_text_ *t, const divload_mpi_multicluster *cal,
                                             const char *application, size_t word_bytes) {
    const divload_mpi_calibration_options *o = &cal->options;
    divload_mpi_put_(t, "{\"version\": 1, \"model\": \"multicluster\",\n \"comment\": \"measured by "
                        "divload_mpi_multicluster_calibrate on %d ranks: fast links over %d pair(s), slow links "
                        "over %d pair(s), %d round trips of %d and %d bytes each; gap per word of %zu bytes",
                     cal->size, cal->fast.pairs, cal->slow.pairs, o->repetitions, o->small_bytes, o->large_bytes,
                     word_bytes);
    if (!cal->slow.measured && cal->size > 1)
        divload_mpi_put_(t, "; slow link not measured (one cluster): it repeats the fast link");
    if (!cal->fast.measured && cal->size > 1)
        divload_mpi_put_(t, "; fast link not measured (no cluster of two ranks): it repeats the slow link");
    divload_mpi_put_(t, "\",\n \"clusters\": [");
    for (int c = 0; c < cal->clusters; c++) {
        divload_mpi_put_(t, "%s{\"name\": ", c ? ",\n   " : "");
        divload_mpi_put_string_(t, cal->names + (size_t)c * DIVLOAD_MPI_NAME_LEN);
        divload_mpi_put_(t, ", \"processors\": %d}", cal->cluster_sizes[c]);
    }
    divload_mpi_put_(t, "],\n \"links\": {");
    divload_mpi_put_link_(t, "fast", &cal->fast, word_bytes);
    divload_mpi_put_(t, ",\n           ");
    divload_mpi_put_link_(t, "slow", &cal->slow, word_bytes);
    divload_mpi_put_(t, "},\n \"application\": %s}\n", application);
}

/* Writes a multicluster document from the calibration: its clusters, the fast and slow
 * links (gap converted to seconds per word of `word_bytes` bytes, the unit of the
 * application's messages), a comment saying how they were measured (and which link was
 * not), and `application` copied verbatim: a JSON object as the document's
 * "application", e.g. {"pattern": "ring", "lattice": 8192, "flip_time": 0.55e-6,
 * "steps": 20}, {"pattern": "all_to_all", "objects": 10000000, "chunk": 4096,
 * "sort_time": 3.42e-3, "words_per_object": 25} or a custom one (see the README). It is
 * checked when the document is planned (divload_plan_json, or the plan helper below).
 *
 * Like snprintf into `out` of `out_len` bytes, NUL-terminated: on DIVLOAD_OK `*out_n` is
 * the length without the NUL; on DIVLOAD_BUFFER_TOO_SMALL nothing is written and `*out_n`
 * is the size `out` needs, NUL included (`out` may be NULL when `out_len` is 0, to ask).
 * DIVLOAD_NULL_PARAMETER for a NULL `cal`, `application` or `out_n` (or `out` with
 * `out_len` > 0); DIVLOAD_INVALID_INPUT for `word_bytes` 0, an empty `application`, or a
 * calibration without clusters or with a link time that is not finite and >= 0. Local:
 * call it on any rank. Numbers have a '.' whatever LC_NUMERIC says (the locale's decimal
 * point, read with localeconv(), is replaced: do not call setlocale in another thread
 * meanwhile). In cluster names, each byte that does not start a valid UTF-8 sequence (a
 * host name in Latin-1, say) is read as Latin-1 and written as \u00XX; quotes,
 * backslashes and control characters are escaped. */
static inline int divload_mpi_multicluster_json(const divload_mpi_multicluster *cal, const char *application,
                                                size_t word_bytes, char *out, size_t out_len, size_t *out_n) {
    if (cal == NULL || application == NULL || out_n == NULL || (out == NULL && out_len > 0))
        return DIVLOAD_NULL_PARAMETER;
    if (word_bytes == 0 || application[0] == '\0' || cal->clusters < 1 || cal->names == NULL ||
        cal->cluster_sizes == NULL)
        return DIVLOAD_INVALID_INPUT;
    const divload_mpi_link *links[2] = {&cal->fast, &cal->slow};
    for (int i = 0; i < 2; i++) {
        const double v[3] = {links[i]->latency, links[i]->overhead, links[i]->gap * (double)word_bytes};
        for (int k = 0; k < 3; k++)
            if (!isfinite(v[k]) || v[k] < 0.0) return DIVLOAD_INVALID_INPUT;
    }
    divload_mpi_text_ count = {NULL, 0, 0};
    divload_mpi_put_document_(&count, cal, application, word_bytes);
    if (count.len + 1 > out_len) {
        *out_n = count.len + 1;
        return DIVLOAD_BUFFER_TOO_SMALL;
    }
    divload_mpi_text_ text = {out, out_len, 0};
    divload_mpi_put_document_(&text, cal, application, word_bytes);
    *out_n = text.len;
    return DIVLOAD_OK;
}

/* A multicluster plan, known on every rank of the calibration's communicator. Counts
 * and displacements are by rank, ready for MPI_Scatterv / MPI_Allgatherv on that
 * communicator; blocks are contiguous along the ring (clusters in the plan's ring order,
 * ranks within a cluster by rank), so a ring code's neighbours hold the blocks just
 * before and after its own. */
typedef struct divload_mpi_multicluster_plan {
    MPI_Comm comm;         /* the calibration's communicator (not owned) */
    int root;              /* the rank that planned */
    int size;              /* ranks */
    int my_count;          /* units this rank gets */
    int my_displacement;   /* its first unit */
    double my_step_time;   /* its predicted step time, seconds */
    int my_participates;   /* 0 when the plan leaves it out (count 0) */
    int *counts;           /* [size] units of each rank */
    int *displs;           /* [size] first unit of each rank */
    double *step_times;    /* [size] predicted step time of each rank */
    int *participates;     /* [size] 1 when the rank takes part */
    divload_multicluster_summary summary; /* run time, step time, EVEN split, ... */
} divload_mpi_multicluster_plan;

static inline void divload_mpi_multicluster_plan_free(divload_mpi_multicluster_plan *plan) {
    if (plan == NULL) return;
    free(plan->counts);
    free(plan->displs);
    free(plan->step_times);
    free(plan->participates);
    plan->counts = plan->displs = plan->participates = NULL;
    plan->step_times = NULL;
}

/* Plans the multicluster document `json` (`json_len` bytes; read on `root` only, others
 * may pass NULL) with libdivload's divload_plan_multicluster on `root` and broadcasts
 * every rank's count, displacement and predicted step time, and the summary. The
 * document's processors must be the calibration's ranks: its clusters those of `cal`, in
 * order, with the same sizes (as divload_mpi_multicluster_json writes them); the
 * application and the links may be anything.
 *
 * Returns DIVLOAD_OK or a status, the same on every rank: the library's (DIVLOAD_JSON for
 * a malformed document, ...; divload_last_error_message() explains on the root),
 * DIVLOAD_INVALID_INPUT for a root out of range or a document whose processors are not
 * the calibration's ranks, DIVLOAD_OVERFLOW for more than INT_MAX units (MPI counts are
 * int), DIVLOAD_NULL_PARAMETER for a NULL `json` on the root. A NULL `cal` or `plan`
 * returns DIVLOAD_NULL_PARAMETER at once (on every rank or none). On failure `plan`
 * holds nothing to free. Collective over cal->comm; free with
 * divload_mpi_multicluster_plan_free (local). */
static inline int divload_mpi_multicluster_plan_create(const divload_mpi_multicluster *cal, int root,
                                                       const char *json, size_t json_len,
                                                       divload_mpi_multicluster_plan *plan) {
    if (cal == NULL || plan == NULL) return DIVLOAD_NULL_PARAMETER;
    memset(plan, 0, sizeof *plan);
    int rank, status = DIVLOAD_OK;
    const int size = cal->size;
    MPI_Comm_rank(cal->comm, &rank);
    plan->comm = cal->comm;
    plan->root = root;
    plan->size = size;
    if (root < 0 || root >= size) return DIVLOAD_INVALID_INPUT; /* the same on every rank */
    const size_t n = (size_t)size;
    plan->counts = (int *)divload_mpi_alloc_(n, sizeof(int));
    plan->displs = (int *)divload_mpi_alloc_(n, sizeof(int));
    plan->step_times = (double *)divload_mpi_alloc_(n, sizeof(double));
    plan->participates = (int *)divload_mpi_alloc_(n, sizeof(int));
    divload_multicluster_processor *procs =
        rank == root ? (divload_multicluster_processor *)divload_mpi_alloc_(n, sizeof *procs) : NULL;
    int ok = plan->counts && plan->displs && plan->step_times && plan->participates && (rank != root || procs);
    int all_ok = divload_mpi_all_ok_(ok, cal->comm);
    if (!all_ok) {
        free(procs);
        divload_mpi_multicluster_plan_free(plan);
        return DIVLOAD_OUT_OF_MEMORY;
    }
    if (rank == root) {
        size_t got = 0;
        status = json == NULL ? (int)DIVLOAD_NULL_PARAMETER
                              : (int)divload_plan_multicluster(json, json_len, procs, n, &got, &plan->summary);
        /* More processors than ranks: the document is not this calibration's. */
        if (status == DIVLOAD_BUFFER_TOO_SMALL || (status == DIVLOAD_OK && got != n)) status = DIVLOAD_INVALID_INPUT;
        if (status == DIVLOAD_OK && plan->summary.units > (uint64_t)INT_MAX) status = DIVLOAD_OVERFLOW;
        for (size_t j = 0; status == DIVLOAD_OK && j < n; j++) {
            const int r = cal->processor_rank[j];
            if (procs[j].cluster != (size_t)cal->cluster_of[r] || procs[j].index != (uint32_t)cal->index_of[r]) {
                status = DIVLOAD_INVALID_INPUT;
                break;
            }
            plan->counts[r] = (int)procs[j].count;
            plan->displs[r] = (int)procs[j].displacement;
            plan->step_times[r] = procs[j].step_time;
            plan->participates[r] = procs[j].participates ? 1 : 0;
        }
    }
    free(procs);
    MPI_Bcast(&status, 1, MPI_INT, root, cal->comm);
    if (status != DIVLOAD_OK) {
        divload_mpi_multicluster_plan_free(plan);
        return status;
    }
    MPI_Bcast(plan->counts, size, MPI_INT, root, cal->comm);
    MPI_Bcast(plan->displs, size, MPI_INT, root, cal->comm);
    MPI_Bcast(plan->step_times, size, MPI_DOUBLE, root, cal->comm);
    MPI_Bcast(plan->participates, size, MPI_INT, root, cal->comm);
    /* Plain data; all ranks of one job share its layout. */
    MPI_Bcast(&plan->summary, (int)sizeof plan->summary, MPI_BYTE, root, cal->comm);
    plan->my_count = plan->counts[rank];
    plan->my_displacement = plan->displs[rank];
    plan->my_step_time = plan->step_times[rank];
    plan->my_participates = plan->participates[rank];
    return DIVLOAD_OK;
}

/* ------------------------------------------------------------------------------------
 * Iterative codes on a ring (legrand2003, "model": "ring"): which ranks, in which
 * cyclic order, how many columns each, measured by MPI and planned with any model's
 * entry point, divload_plan_shares.
 *
 *     divload_mpi_ring_calibration cal;
 *     divload_mpi_ring_calibrate(MPI_COMM_WORLD, 64, my_kernel, ctx, 0.0, H, sizeof(double), NULL, &cal);
 *     char doc[65536];
 *     size_t len;
 *     divload_mpi_ring_json(&cal, W, H, "heuristic", doc, sizeof doc, &len);
 *     divload_mpi_ring ring;
 *     if (divload_mpi_ring_create(&cal, 0, doc, len, &ring) != DIVLOAD_OK) { ... }
 *     if (ring.my_member) {
 *         ...                                   // columns [my_displacement, + my_count)
 *         MPI_Sendrecv(..., ring.my_right, ..., ring.my_left, ..., ring.ring_comm, ...);
 *     }
 *     divload_mpi_ring_free(&ring);
 *     divload_mpi_ring_calibration_free(&cal);
 *
 * Calibration. Each rank's cycle time w (seconds per column) is the best of 3 timings of
 * compute(ctx, sample_columns), divided by sample_columns: the caller's own kernel, or
 * a busy loop as long as a column's work; with a NULL compute, `my_cycle_time` (> 0) is
 * taken as given. The link cost c[i][j] (seconds per boundary value from rank i to j)
 * is measured for every pair of ranks by the multi-cluster calibration's ping-pong and
 * estimator (heien's L, o, g: see that section), one pair at a time while the others
 * sleep in a barrier, with the large message the boundary itself (H values of
 * `value_bytes`, unless the options say otherwise): c = (L + 2o + H·value_bytes·g) / H,
 * the time of one boundary message per value, so that the ring model's H·c is the
 * message's time, latency included. Links are taken as symmetric (c[i][j] = c[j][i]).
 * p(p-1)/2 pairs are measured: at 64 ranks, 2016 pairs; pass a document of your own
 * (divload_mpi_ring_create reads any ring document whose processors are the ranks) when
 * that is too long.
 *
 * The ring. divload_mpi_ring_create plans on the root with divload_plan_shares and
 * broadcasts every rank's count, displacement and position on the ring. The members
 * form `ring_comm`, a periodic 1-D Cartesian communicator (MPI_Comm_split with the
 * position as key, then MPI_Cart_create without reordering) whose rank is the position
 * on the ring: blocks of columns follow each other along it, so a member's left and
 * right neighbours (`my_left`, `my_right`, ranks of ring_comm) hold the columns just
 * before and after its own, and the last member's right neighbour is the first (the
 * ring closes). Ranks the plan leaves out have `my_member` 0, no columns, my_position
 * -1 and ring_comm MPI_COMM_NULL.
 * ------------------------------------------------------------------------------------ */

/* A ring calibration, the same on every rank of the communicator it was made on. */
typedef struct divload_mpi_ring_calibration {
    MPI_Comm comm;        /* the communicator (not owned) */
    int size;             /* ranks = processors of the document, "r0" .. "r<size-1>" */
    double boundary;      /* H the costs were measured for (values per message) */
    size_t value_bytes;   /* bytes of one boundary value */
    double *cycle_times;  /* [size] seconds per column of each rank */
    double *costs;        /* [size * size] seconds per boundary value from rank i to j, row-major; diagonal 0 */
    divload_mpi_calibration_options options; /* as measured, defaults filled in */
} divload_mpi_ring_calibration;

static inline void divload_mpi_ring_calibration_free(divload_mpi_ring_calibration *cal) {
    if (cal == NULL) return;
    free(cal->cycle_times);
    free(cal->costs);
    cal->cycle_times = cal->costs = NULL;
}

/* Measures every rank's cycle time and the cost matrix between all pairs of ranks, as
 * described above. `boundary` (H >= 1, the values each member sends to each neighbour
 * per iteration) and `value_bytes` (>= 1) size the measured message; `options` (NULL for
 * the defaults, read on rank 0 only) are the multi-cluster calibration's, whose
 * large_bytes defaults here to the boundary message (at least small_bytes + 1).
 *
 * Returns DIVLOAD_OK, DIVLOAD_INVALID_INPUT (sample_columns < 1 with a compute function,
 * a NULL compute with my_cycle_time not finite and > 0, boundary not finite and >= 1,
 * value_bytes 0, a boundary message beyond INT_MAX bytes, options out of range: on any
 * rank) or DIVLOAD_OUT_OF_MEMORY, the same on every rank; on failure `cal` holds nothing
 * to free. A NULL `cal` returns DIVLOAD_NULL_PARAMETER at once (pass it on every rank or
 * none). Memory: size² doubles on every rank. Collective over `comm`; free with
 * divload_mpi_ring_calibration_free (local). */
static inline int divload_mpi_ring_calibrate(MPI_Comm comm, int sample_columns, divload_mpi_compute_fn compute,
                                             void *ctx, double my_cycle_time, double boundary, size_t value_bytes,
                                             const divload_mpi_calibration_options *options,
                                             divload_mpi_ring_calibration *cal) {
    if (cal == NULL) return DIVLOAD_NULL_PARAMETER;
    memset(cal, 0, sizeof *cal);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    cal->comm = comm;
    cal->size = size;
    cal->boundary = boundary;
    cal->value_bytes = value_bytes;

    const double message = boundary * (double)value_bytes;
    int opt[4] = {8, 0, 21, 1};
    if (rank == 0 && options != NULL) {
        const int given[3] = {options->small_bytes, options->large_bytes, options->repetitions};
        for (int i = 0; i < 3; i++)
            if (given[i] != 0) opt[i] = given[i];
    }
    if (opt[1] == 0 && isfinite(message) && message <= (double)INT_MAX)
        opt[1] = (int)message > opt[0] ? (int)message : opt[0] + 1;
    MPI_Bcast(opt, 4, MPI_INT, 0, comm);
    cal->options.small_bytes = opt[0];
    cal->options.large_bytes = opt[1];
    cal->options.repetitions = opt[2];
    cal->options.max_pairs = opt[3];
    int bad = compute != NULL ? sample_columns < 1 : !(isfinite(my_cycle_time) && my_cycle_time > 0.0);
    if (!(isfinite(boundary) && boundary >= 1.0) || value_bytes == 0 || !(message <= (double)INT_MAX)) bad = 1;
    if (opt[0] < 1 || opt[1] <= opt[0] || opt[2] < 1) bad = 1;
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_LOR, comm);
    if (any_bad) return DIVLOAD_INVALID_INPUT;

    const size_t n = (size_t)size;
    const int countable = n <= (size_t)INT_MAX / 4 / n;
    cal->cycle_times = (double *)divload_mpi_alloc_(n, sizeof(double));
    cal->costs = countable ? (double *)divload_mpi_alloc_(n * n, sizeof(double)) : NULL;
    /* Each pair's four raw timings, at [4 * (a * size + b)]: summed over the ranks. */
    double *raw = countable ? (double *)divload_mpi_alloc_(4 * n * n, sizeof(double)) : NULL;
    double *samples = (double *)divload_mpi_alloc_(2 * (size_t)opt[2], sizeof(double));
    double *work = (double *)divload_mpi_alloc_(5, sizeof(double));
    char *buf = (char *)divload_mpi_alloc_((size_t)opt[1], 1);
    int ok = cal->cycle_times && cal->costs && raw && samples && work && buf;
    int all_ok = divload_mpi_all_ok_(ok, comm);
    if (!all_ok) {
        free(raw);
        free(samples);
        free(work);
        free(buf);
        divload_mpi_ring_calibration_free(cal);
        return DIVLOAD_OUT_OF_MEMORY;
    }

    double mine = my_cycle_time;
    if (compute != NULL) {
        double best = 0.0;
        for (int rep = 0; rep < 3; rep++) {
            double t0 = MPI_Wtime();
            compute(ctx, sample_columns);
            double dt = MPI_Wtime() - t0;
            if (rep == 0 || dt < best) best = dt;
        }
        mine = best / (double)sample_columns;
        if (!(mine > 0.0)) mine = 1e-12; /* a kernel too fast to time */
    }
    MPI_Allgather(&mine, 1, MPI_DOUBLE, cal->cycle_times, 1, MPI_DOUBLE, comm);

    MPI_Comm dup;
    MPI_Comm_dup(comm, &dup);
    for (int a = 0; a < size; a++) {
        for (int b = a + 1; b < size; b++) {
            divload_mpi_quiet_barrier_(dup);
            divload_mpi_ping_pong_(dup, rank, a, b, &cal->options, buf, samples, raw + 4 * ((size_t)a * n + b));
        }
    }
    divload_mpi_quiet_barrier_(dup);
    if (n * n > 0) MPI_Allreduce(MPI_IN_PLACE, raw, 4 * size * size, MPI_DOUBLE, MPI_SUM, dup);
    MPI_Comm_free(&dup);
    for (int a = 0; a < size; a++) {
        for (int b = a + 1; b < size; b++) {
            const divload_mpi_link l = divload_mpi_estimate_(raw + 4 * ((size_t)a * n + b), 1, &cal->options, work);
            double c = (l.latency + 2.0 * l.overhead + message * l.gap) / boundary;
            /* A cost of 0 is not a cost the model takes (links cost > 0): a pair too fast
               to time costs a picosecond per value. */
            if (!(c > 0.0) || !isfinite(c)) c = 1e-12;
            cal->costs[(size_t)a * n + b] = cal->costs[(size_t)b * n + a] = c;
        }
    }
    free(raw);
    free(samples);
    free(work);
    free(buf);
    return DIVLOAD_OK;
}

static inline void divload_mpi_put_ring_document_(divload_mpi_text_ *t, const divload_mpi_ring_calibration *cal,
                                                  long long work, double boundary, const char *solver) {
    const divload_mpi_calibration_options *o = &cal->options;
    divload_mpi_put_(t, "{\"version\": 1, \"model\": \"ring\",\n \"comment\": \"measured by divload_mpi_ring_calibrate "
                        "on %d ranks: cycle times of the ranks' kernels, costs per boundary value of %zu bytes from "
                        "round trips of %d and %d bytes (best of %d) between every pair of ranks\",\n \"work\": %lld, "
                        "\"boundary\": ",
                     cal->size, cal->value_bytes, o->small_bytes, o->large_bytes, o->repetitions, work);
    divload_mpi_put_double_(t, boundary);
    divload_mpi_put_(t, ", \"solver\": ");
    divload_mpi_put_string_(t, solver);
    divload_mpi_put_(t, ",\n \"processors\": [");
    for (int r = 0; r < cal->size; r++) {
        divload_mpi_put_(t, "%s{\"name\": \"r%d\", \"cycle_time\": ", r ? ",\n   " : "", r);
        divload_mpi_put_double_(t, cal->cycle_times[r]);
        divload_mpi_put_(t, "}");
    }
    divload_mpi_put_(t, "],\n \"cost_matrix\": [");
    for (int i = 0; i < cal->size; i++) {
        divload_mpi_put_(t, "%s[", i ? ",\n   " : "");
        for (int j = 0; j < cal->size; j++) {
            if (j) divload_mpi_put_(t, ", ");
            divload_mpi_put_double_(t, cal->costs[(size_t)i * (size_t)cal->size + (size_t)j]);
        }
        divload_mpi_put_(t, "]");
    }
    divload_mpi_put_(t, "]}\n");
}

/* Writes the ring document of a calibration: processors "r0" .. "r<size-1>" (rank r is
 * processor r) with their cycle times, the cost matrix, `work` columns (W >= 1),
 * `boundary` values (H, finite and >= 0: the costs stay those measured for cal->boundary)
 * and `solver` ("heuristic", or "exact" up to 8 ranks; NULL: "heuristic"), with a comment
 * saying how it was measured. Like divload_mpi_multicluster_json: snprintf-like into
 * `out`, NUL-terminated; on DIVLOAD_BUFFER_TOO_SMALL nothing is written and `*out_n` is
 * the size needed, NUL included (`out` may be NULL when `out_len` is 0, to ask).
 * DIVLOAD_NULL_PARAMETER for a NULL `cal` or `out_n` (or `out` with `out_len` > 0);
 * DIVLOAD_INVALID_INPUT for work < 1, a boundary not finite and >= 0, a calibration
 * without ranks or with a time that is not finite and > 0. The values themselves are
 * checked when the document is planned. Local: call it on any rank; numbers have a '.'
 * whatever LC_NUMERIC says. */
static inline int divload_mpi_ring_json(const divload_mpi_ring_calibration *cal, long long work, double boundary,
                                        const char *solver, char *out, size_t out_len, size_t *out_n) {
    if (cal == NULL || out_n == NULL || (out == NULL && out_len > 0)) return DIVLOAD_NULL_PARAMETER;
    if (work < 1 || !(isfinite(boundary) && boundary >= 0.0) || cal->size < 1 || cal->cycle_times == NULL ||
        cal->costs == NULL)
        return DIVLOAD_INVALID_INPUT;
    const size_t n = (size_t)cal->size;
    for (size_t i = 0; i < n; i++) {
        if (!(isfinite(cal->cycle_times[i]) && cal->cycle_times[i] > 0.0)) return DIVLOAD_INVALID_INPUT;
        for (size_t j = 0; j < n; j++) {
            const double c = cal->costs[i * n + j];
            if (i != j && !(isfinite(c) && c > 0.0)) return DIVLOAD_INVALID_INPUT;
        }
    }
    if (solver == NULL) solver = "heuristic";
    divload_mpi_text_ count = {NULL, 0, 0};
    divload_mpi_put_ring_document_(&count, cal, work, boundary, solver);
    if (count.len + 1 > out_len) {
        *out_n = count.len + 1;
        return DIVLOAD_BUFFER_TOO_SMALL;
    }
    divload_mpi_text_ text = {out, out_len, 0};
    divload_mpi_put_ring_document_(&text, cal, work, boundary, solver);
    *out_n = text.len;
    return DIVLOAD_OK;
}

/* The predicted time of one iteration (the ring model's T_step, eq. 1) of `members`
 * ranks in the ring order `order` (ranks of cal->comm) with `counts[k]` columns for
 * order[k]: max over the members of count·w + H·(c[i][succ] + c[i][pred]), no
 * communication for a ring of one. With the plan's order and counts it is the plan's
 * makespan; with every rank in rank order and W / size columns each (the first W % size
 * one more), the even split's. -1 for arguments out of range. Local. */
static inline double divload_mpi_ring_predict(const divload_mpi_ring_calibration *cal, double boundary,
                                              const int *order, const int *counts, int members) {
    if (cal == NULL || order == NULL || counts == NULL || members < 1 || members > cal->size) return -1.0;
    const size_t n = (size_t)cal->size;
    double worst = 0.0;
    for (int k = 0; k < members; k++) {
        const int i = order[k], succ = order[(k + 1) % members], pred = order[(k + members - 1) % members];
        if (i < 0 || i >= cal->size || succ < 0 || succ >= cal->size || pred < 0 || pred >= cal->size ||
            counts[k] < 0)
            return -1.0;
        double t = counts[k] * cal->cycle_times[i];
        if (members > 1) t += boundary * (cal->costs[(size_t)i * n + succ] + cal->costs[(size_t)i * n + pred]);
        if (t > worst) worst = t;
    }
    return worst;
}

/* A ring plan, known on every rank of the calibration's communicator. */
typedef struct divload_mpi_ring {
    MPI_Comm comm;       /* the calibration's communicator (not owned) */
    MPI_Comm ring_comm;  /* the members, periodic 1-D Cartesian, rank = position (owned);
                            MPI_COMM_NULL on ranks left out */
    int root;            /* the rank that planned */
    int size;            /* ranks of comm */
    int members;         /* ranks on the ring */
    int my_member;       /* 1 on the ring, 0 left out */
    int my_position;     /* place on the ring = rank in ring_comm; -1 when left out */
    int my_count;        /* columns of this rank (0 when left out) */
    int my_displacement; /* its first column */
    int my_left;         /* predecessor's rank in ring_comm (MPI_PROC_NULL when left out) */
    int my_right;        /* successor's rank in ring_comm (MPI_PROC_NULL when left out) */
    int *counts;         /* [size] columns of each rank of comm */
    int *displs;         /* [size] first column of each rank of comm */
    int *positions;      /* [size] place on the ring of each rank of comm, -1 when left out */
    int *ring_ranks;     /* [members] rank in comm of each place on the ring */
    divload_plan_summary summary; /* T_step, lower bound, gap, method, ... */
} divload_mpi_ring;

static inline void divload_mpi_ring_release_(divload_mpi_ring *ring) {
    free(ring->counts);
    free(ring->displs);
    free(ring->positions);
    free(ring->ring_ranks);
    ring->counts = ring->displs = ring->positions = ring->ring_ranks = NULL;
}

/* Plans the ring document `json` (`json_len` bytes; read on `root` only, others may pass
 * NULL) with divload_plan_shares on `root`, broadcasts every rank's count, displacement
 * and position and the summary, and builds ring_comm, as described above. The
 * document's processors must be the communicator's ranks in rank order (as
 * divload_mpi_ring_json writes them); any ring document of that many processors is
 * accepted (a cost matrix of your own, say).
 *
 * Returns DIVLOAD_OK or a status, the same on every rank: the library's (DIVLOAD_JSON for
 * a malformed document, ...; divload_last_error_message() explains on the root),
 * DIVLOAD_INVALID_INPUT for a root out of range or a document whose processors are not
 * the communicator's ranks, DIVLOAD_OVERFLOW for more than INT_MAX columns (MPI counts
 * are int), DIVLOAD_NULL_PARAMETER for a NULL `json` on the root, DIVLOAD_OUT_OF_MEMORY.
 * A NULL `cal` or `ring` returns DIVLOAD_NULL_PARAMETER at once (on every rank or none).
 * On failure `ring` holds nothing to free. Collective over cal->comm; free with
 * divload_mpi_ring_free (collective over the members: MPI_Comm_free). */
static inline int divload_mpi_ring_create(const divload_mpi_ring_calibration *cal, int root, const char *json,
                                          size_t json_len, divload_mpi_ring *ring) {
    if (cal == NULL || ring == NULL) return DIVLOAD_NULL_PARAMETER;
    memset(ring, 0, sizeof *ring);
    int rank, status = DIVLOAD_OK;
    const int size = cal->size;
    MPI_Comm_rank(cal->comm, &rank);
    ring->comm = cal->comm;
    ring->ring_comm = MPI_COMM_NULL;
    ring->root = root;
    ring->size = size;
    ring->my_position = -1;
    ring->my_left = ring->my_right = MPI_PROC_NULL;
    if (root < 0 || root >= size) return DIVLOAD_INVALID_INPUT; /* the same on every rank */
    const size_t n = (size_t)size;
    ring->counts = (int *)divload_mpi_alloc_(n, sizeof(int));
    ring->displs = (int *)divload_mpi_alloc_(n, sizeof(int));
    ring->positions = (int *)divload_mpi_alloc_(n, sizeof(int));
    ring->ring_ranks = (int *)divload_mpi_alloc_(n, sizeof(int));
    divload_share *shares = rank == root ? (divload_share *)divload_mpi_alloc_(n, sizeof *shares) : NULL;
    int ok = ring->counts && ring->displs && ring->positions && ring->ring_ranks && (rank != root || shares);
    int all_ok = divload_mpi_all_ok_(ok, cal->comm);
    if (!all_ok) {
        free(shares);
        divload_mpi_ring_release_(ring);
        return DIVLOAD_OUT_OF_MEMORY;
    }
    if (rank == root) {
        size_t got = 0;
        status = json == NULL ? (int)DIVLOAD_NULL_PARAMETER
                              : (int)divload_plan_shares(json, json_len, shares, n, &got, &ring->summary);
        /* More processors than ranks, or fewer: the document is not this communicator's. */
        if (status == DIVLOAD_BUFFER_TOO_SMALL || (status == DIVLOAD_OK && got != n)) status = DIVLOAD_INVALID_INPUT;
        if (status == DIVLOAD_OK && ring->summary.items > (uint64_t)INT_MAX) status = DIVLOAD_OVERFLOW;
        for (size_t r = 0; status == DIVLOAD_OK && r < n; r++) {
            ring->counts[r] = (int)shares[r].count;
            ring->displs[r] = (int)shares[r].displacement;
            ring->positions[r] = (int)shares[r].position;
        }
    }
    free(shares);
    MPI_Bcast(&status, 1, MPI_INT, root, cal->comm);
    if (status != DIVLOAD_OK) {
        divload_mpi_ring_release_(ring);
        return status;
    }
    MPI_Bcast(ring->counts, size, MPI_INT, root, cal->comm);
    MPI_Bcast(ring->displs, size, MPI_INT, root, cal->comm);
    MPI_Bcast(ring->positions, size, MPI_INT, root, cal->comm);
    /* Plain data; all ranks of one job share its layout. */
    MPI_Bcast(&ring->summary, (int)sizeof ring->summary, MPI_BYTE, root, cal->comm);
    for (int r = 0; r < size; r++) {
        if (ring->positions[r] < 0) continue;
        ring->ring_ranks[ring->positions[r]] = r;
        ring->members++;
    }
    ring->my_position = ring->positions[rank];
    ring->my_member = ring->my_position >= 0;
    ring->my_count = ring->counts[rank];
    ring->my_displacement = ring->displs[rank];
    MPI_Comm split = MPI_COMM_NULL;
    MPI_Comm_split(cal->comm, ring->my_member ? 0 : MPI_UNDEFINED, ring->my_position, &split);
    if (split != MPI_COMM_NULL) {
        const int dims[1] = {ring->members}, periods[1] = {1};
        MPI_Cart_create(split, 1, dims, periods, 0, &ring->ring_comm);
        MPI_Comm_free(&split);
        MPI_Cart_shift(ring->ring_comm, 0, 1, &ring->my_left, &ring->my_right);
    }
    return DIVLOAD_OK;
}

/* Frees the plan's arrays and ring_comm (collective over the members). */
static inline void divload_mpi_ring_free(divload_mpi_ring *ring) {
    if (ring == NULL) return;
    if (ring->ring_comm != MPI_COMM_NULL) MPI_Comm_free(&ring->ring_comm);
    divload_mpi_ring_release_(ring);
}

/* ------------------------------------------------------------------------------------
 * Work whose cost is not linear in its size, on ranks of different speeds (cerin2006,
 * "model": "partition"): plan each rank's share of a batch, learn the cost from the
 * batches already done, and a sample sort whose ranks end up with their planned shares.
 *
 *     divload_mpi_partition part;
 *     divload_mpi_partition_create(MPI_COMM_WORLD, 0, my_speed, &part);  // or measured:
 *                                          // divload_mpi_measure_speed(...)
 *     for (batch = 0; batch < batches; batch++) {
 *         divload_mpi_partition_plan(&part, n, DIVLOAD_MPI_SPLIT_LEARNED); // same status everywhere
 *         ... this rank takes records [part.my_displacement, + part.my_count) of the batch
 *         t0 = clock(); sort them locally by key; ...
 *         divload_mpi_partition_splitters(&part, recs, part.my_count, sizeof(record), 0, 10, 0, sendcounts);
 *         ... MPI_Alltoall of the counts, MPI_Alltoallv of the records, merge the runs
 *         divload_mpi_partition_rebalance(&part, merged, got, record_type, out, &moved);
 *         divload_mpi_partition_observe(&part, part.my_count, clock() - t0);   // local
 *     }
 *     divload_mpi_partition_free(&part);                                       // local
 *
 * The plan. On the root, divload_mpi_partition_plan writes a partition document with one
 * worker per rank ("rank 0", "rank 1", ...; the root keeps it in `document`) and plans
 * it with divload_plan_shares: the exact integer split where all ranks finish together
 * (cerin2006 §4). What each rank's cost is depends on the split asked for:
 *   - DIVLOAD_MPI_SPLIT_EVEN: the same linear cost on every rank, and of the optimal
 *     splits of that document the even one (items / size each, the first items % size
 *     ranks one more);
 *   - DIVLOAD_MPI_SPLIT_SPEED: a linear cost per item of alpha / speed, the split by speed
 *     alone (the paper's A.1, its eq. (1), and §3.3's "linear guess" for a first batch);
 *   - DIVLOAD_MPI_SPLIT_LEARNED: a rank's observations as its measured cost,
 *     `"comp_table": [[items, seconds], ...], "repair": true` (observations of nearly
 *     the same size first merged into one point, DIVLOAD_MPI_PARTITION_MERGE; then
 *     decreasing times pooled into their weighted mean: §3.3's monotone repair;
 *     interpolated piecewise-linearly, one point extended as the line from the origin,
 *     the last segment beyond the last point), and the linear guess alpha / speed for a
 *     rank without observations. Each rank learns its own cost (unrelated processors), so
 *     a rank whose speed was misjudged is corrected by its own timings.
 * alpha is the mean of seconds * speed / items over every rank's latest observation, so
 * that guesses and tables are in the same unit (seconds); with no observation at all it
 * is 1 and the predicted makespan (`summary.makespan`) is in seconds per item at speed 1.
 * Each rank keeps its last DIVLOAD_MPI_PARTITION_POINTS observations (a comp_table's
 * capacity), the oldest replaced first, and the plan gathers them on the root. Blocks are
 * laid out by rank: rank r's items are [displs[r], displs[r] + counts[r]), so in a sort
 * the ranks hold the sorted output in rank order.
 *
 * The splitters (regular sampling, weighted). Every rank's records are sorted by a key of
 * `key_len` bytes at `key_offset`, compared as memcmp does. Each rank samples c = min(n,
 * samples) keys at the positions (2k + 1) n / (2c), k < c, each standing for n / c
 * records; the root gathers them, sorts them, and estimates how many records lie below
 * each sample key (the weight of the samples before it, plus half its own). Splitter j
 * is the sample key (or -infinity, +infinity) whose estimate is closest to the plan's
 * cumulative share of the records, M (counts[0] + ... + counts[j]) / items for M
 * records in all; the root broadcasts them and every rank cuts its sorted records at
 * them (records with a key below splitter j go to ranks 0..j). Rank i then receives about
 * counts[i] records when keys are distinct: in each rank r the records below a sample key
 * lie between two of r's sample positions, so an estimate is off by at most
 * w_r / 2 + 1 there (w_r = n_r / c_r), and the closest candidate is at most half the
 * largest weight from the target; a rank's count, the difference of two cuts, is off by
 * at most sum_r w_r + max_r w_r + 2 size (tests/mpi/test_partition.c checks this bound).
 * Equal keys all go to the same rank, so with repeated keys the bound does not hold.
 *
 * The exact counts. divload_mpi_partition_rebalance makes them exact: the ranks' sorted
 * records are one sorted sequence in rank order, and each rank sends the part of its
 * stretch of that sequence that falls into another rank's planned block [displs[r],
 * displs[r] + counts[r]) there, by one MPI_Alltoallv. Only the records around the
 * splitters move (`moved` says how many), the output stays sorted, and each rank ends
 * with exactly counts[rank] records, duplicate keys or not.
 * ------------------------------------------------------------------------------------ */

/* A rank's observations kept for learning: the capacity of a document's comp_table. */
#define DIVLOAD_MPI_PARTITION_POINTS 32

/* Observations of one rank whose sizes lie within this fraction of the smallest of them
 * are one point of its learned cost, at their centroid (mean size, mean seconds). Points
 * much closer than the timing noise give a table whose slopes are noise: two timings 1 %
 * apart in size and 5 % apart in time make a segment five times too steep or flat, and
 * a flat one after repair hands a rank items for nothing (derivation partition.md §7,
 * critique 1). Once the plans settle, a rank's timings fall into one point, and the plan
 * from one point per rank (its line from the origin) is a fixed point exactly where all
 * ranks finish together, whatever the cost; the mean averages the noise out. */
#define DIVLOAD_MPI_PARTITION_MERGE 0.1

/* Which split divload_mpi_partition_plan makes (see above). */
#define DIVLOAD_MPI_SPLIT_LEARNED 0
#define DIVLOAD_MPI_SPLIT_SPEED 1
#define DIVLOAD_MPI_SPLIT_EVEN 2

/* Samples per rank for divload_mpi_partition_splitters when it is given 0. */
#define DIVLOAD_MPI_DEFAULT_SAMPLES 256

/* A partition of batches, known on every rank of its communicator. */
typedef struct divload_mpi_partition {
    MPI_Comm comm;            /* the communicator (not owned) */
    int root;                 /* the rank that plans */
    int size;                 /* ranks */
    int rank;                 /* this rank */
    double *speeds;           /* [size] every rank's speed, as given to create */
    long long items;          /* items of the last plan (0 before the first) */
    int split;                /* the last plan's DIVLOAD_MPI_SPLIT_*, -1 before the first */
    int my_count;             /* this rank's items in the last plan */
    int my_displacement;      /* its first item: the sum of the counts of lower ranks */
    int *counts;              /* [size] items of each rank in the last plan */
    int *displs;              /* [size] first item of each rank */
    int learned_from;         /* observations the last plan used, over all ranks */
    divload_plan_summary summary; /* the last plan's: predicted makespan, bound, method */
    /* This rank's last observations (items, seconds), oldest first once full. */
    int my_observations;
    int my_next;
    long long my_items[DIVLOAD_MPI_PARTITION_POINTS];
    double my_seconds[DIVLOAD_MPI_PARTITION_POINTS];
    /* On the root only (NULL elsewhere): every rank's observations as the last plan
     * gathered them, and the document it planned (NUL-terminated). */
    int *all_observations;    /* [size] */
    long long *all_items;     /* [size * DIVLOAD_MPI_PARTITION_POINTS] */
    double *all_seconds;      /* [size * DIVLOAD_MPI_PARTITION_POINTS] */
    char *document;
    size_t document_len;
} divload_mpi_partition;

/* Frees what the partition holds. Local: no communication. */
static inline void divload_mpi_partition_free(divload_mpi_partition *part) {
    if (part == NULL) return;
    free(part->speeds);
    free(part->counts);
    free(part->displs);
    free(part->all_observations);
    free(part->all_items);
    free(part->all_seconds);
    free(part->document);
    part->speeds = NULL;
    part->counts = part->displs = part->all_observations = NULL;
    part->all_items = NULL;
    part->all_seconds = NULL;
    part->document = NULL;
    part->document_len = 0;
}

/* Your reading of elapsed time in seconds, for divload_mpi_measure_speed: MPI_Wtime, or a
 * CPU clock when ranks share cores. */
typedef double (*divload_mpi_clock_fn)(void);

static inline double divload_mpi_wtime_(void) { return MPI_Wtime(); }

/* This rank's speed, measured: `items` / the best of 3 timings of compute(ctx, items),
 * with `clock` (NULL for MPI_Wtime). Any fixed workload will do, as long as every rank
 * runs the same one: speeds are relative. Returns DIVLOAD_OK, DIVLOAD_NULL_PARAMETER for
 * a NULL `compute` or `speed`, DIVLOAD_INVALID_INPUT for items < 1 or a workload too
 * short for the clock to time (no positive, finite duration). `*speed` is written only
 * on success. Local: no communication. */
static inline int divload_mpi_measure_speed(divload_mpi_compute_fn compute, void *ctx, int items,
                                            divload_mpi_clock_fn clock, double *speed) {
    if (compute == NULL || speed == NULL) return DIVLOAD_NULL_PARAMETER;
    if (items < 1) return DIVLOAD_INVALID_INPUT;
    if (clock == NULL) clock = divload_mpi_wtime_;
    double best = 0.0;
    for (int rep = 0; rep < 3; rep++) {
        const double t0 = clock();
        compute(ctx, items);
        const double dt = clock() - t0;
        if (rep == 0 || dt < best) best = dt;
    }
    const double s = (double)items / best;
    if (!(best > 0.0) || !isfinite(s)) return DIVLOAD_INVALID_INPUT;
    *speed = s;
    return DIVLOAD_OK;
}

/* Sets up a partition over `comm`: every rank gives its speed (finite and > 0; only the
 * ratios matter), which every rank learns. No plan yet: call divload_mpi_partition_plan.
 *
 * Returns DIVLOAD_OK or a status, the same on every rank: DIVLOAD_INVALID_INPUT for
 * `root` outside [0, size) or a speed on any rank that is not finite and > 0,
 * DIVLOAD_NULL_PARAMETER when `part` is NULL on any rank, DIVLOAD_OUT_OF_MEMORY when any
 * rank cannot allocate. On failure `part` (if not NULL) holds nothing to free.
 * Collective over `comm`: every rank passes the same `root`. */
static inline int divload_mpi_partition_create(MPI_Comm comm, int root, double my_speed,
                                               divload_mpi_partition *part) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (part != NULL) {
        memset(part, 0, sizeof *part);
        part->comm = comm;
        part->root = root;
        part->size = size;
        part->rank = rank;
    }
    if (root < 0 || root >= size) return DIVLOAD_INVALID_INPUT; /* the same on every rank */
    const size_t n = (size_t)size, points = DIVLOAD_MPI_PARTITION_POINTS;
    /* One allreduce settles the arguments and the allocations of every rank. */
    int ok[3] = {part != NULL, isfinite(my_speed) && my_speed > 0.0, 0}, all_ok[3] = {0, 0, 0};
    if (ok[0]) {
        part->speeds = (double *)divload_mpi_alloc_(n, sizeof(double));
        part->counts = (int *)divload_mpi_alloc_(n, sizeof(int));
        part->displs = (int *)divload_mpi_alloc_(n, sizeof(int));
        ok[2] = part->speeds && part->counts && part->displs;
        if (rank == root) {
            part->all_observations = (int *)divload_mpi_alloc_(n, sizeof(int));
            part->all_items = (long long *)divload_mpi_alloc_(n, points * sizeof(long long));
            part->all_seconds = (double *)divload_mpi_alloc_(n, points * sizeof(double));
            ok[2] = ok[2] && part->all_observations && part->all_items && part->all_seconds;
        }
    }
    MPI_Allreduce(ok, all_ok, 3, MPI_INT, MPI_LAND, comm);
    if (!all_ok[0] || !all_ok[1] || !all_ok[2]) {
        divload_mpi_partition_free(part);
        return !all_ok[0] ? DIVLOAD_NULL_PARAMETER : !all_ok[1] ? DIVLOAD_INVALID_INPUT : DIVLOAD_OUT_OF_MEMORY;
    }
    MPI_Allgather(&my_speed, 1, MPI_DOUBLE, part->speeds, 1, MPI_DOUBLE, comm);
    part->split = -1;
    return DIVLOAD_OK;
}

/* Records that this rank took `seconds` (finite and > 0) for `items` (>= 1) items of the
 * work being partitioned; the next DIVLOAD_MPI_SPLIT_LEARNED plan learns from it. Keeps
 * the last DIVLOAD_MPI_PARTITION_POINTS. Returns DIVLOAD_OK, DIVLOAD_NULL_PARAMETER or
 * DIVLOAD_INVALID_INPUT (then nothing is recorded). Local: no communication. */
static inline int divload_mpi_partition_observe(divload_mpi_partition *part, long long items, double seconds) {
    if (part == NULL) return DIVLOAD_NULL_PARAMETER;
    if (items < 1 || !isfinite(seconds) || !(seconds > 0.0)) return DIVLOAD_INVALID_INPUT;
    const int k = part->my_next;
    part->my_items[k] = items;
    part->my_seconds[k] = seconds;
    part->my_next = (k + 1) % DIVLOAD_MPI_PARTITION_POINTS;
    if (part->my_observations < DIVLOAD_MPI_PARTITION_POINTS) part->my_observations++;
    return DIVLOAD_OK;
}

/* The partition document (on the root, from the observations gathered there). */
static inline void divload_mpi_put_partition_(divload_mpi_text_ *t, const divload_mpi_partition *part,
                                              long long items, int split, double alpha, int learned_from) {
    static const char *const splits[] = {"learned from the ranks' timings", "by speed alone", "even"};
    const size_t points = DIVLOAD_MPI_PARTITION_POINTS;
    divload_mpi_put_(t,
                     "{\"version\": 1, \"model\": \"partition\",\n \"comment\": \"written by "
                     "divload_mpi_partition_plan on %d ranks: split %s, %d observation(s); linear costs are "
                     "alpha / speed with alpha ",
                     part->size, splits[split], learned_from);
    divload_mpi_put_double_(t, alpha);
    divload_mpi_put_(t, "\",\n \"items\": %lld,\n \"workers\": [", items);
    for (int r = 0; r < part->size; r++) {
        const int seen = part->all_observations[r];
        divload_mpi_put_(t, "%s{\"name\": \"rank %d\", ", r ? ",\n   " : "", r);
        if (split == DIVLOAD_MPI_SPLIT_LEARNED && seen > 0) {
            /* By size (insertion: at most DIVLOAD_MPI_PARTITION_POINTS), then each run of
               sizes within DIVLOAD_MPI_PARTITION_MERGE of its first as one point at its
               centroid. */
            long long n_at[DIVLOAD_MPI_PARTITION_POINTS];
            double s_at[DIVLOAD_MPI_PARTITION_POINTS];
            for (int k = 0; k < seen; k++) {
                const long long nk = part->all_items[(size_t)r * points + (size_t)k];
                const double sk = part->all_seconds[(size_t)r * points + (size_t)k];
                int j = k;
                for (; j > 0 && n_at[j - 1] > nk; j--) {
                    n_at[j] = n_at[j - 1];
                    s_at[j] = s_at[j - 1];
                }
                n_at[j] = nk;
                s_at[j] = sk;
            }
            divload_mpi_put_(t, "\"comp_table\": [");
            for (int k = 0, written = 0; k < seen; written++) {
                double n_sum = 0.0, s_sum = 0.0;
                int m = 0;
                const double limit = (double)n_at[k] * (1.0 + DIVLOAD_MPI_PARTITION_MERGE);
                for (; k < seen && (m == 0 || (double)n_at[k] <= limit); k++, m++) {
                    n_sum += (double)n_at[k];
                    s_sum += s_at[k];
                }
                divload_mpi_put_(t, "%s[%lld, ", written ? ", " : "", (long long)(n_sum / m + 0.5));
                divload_mpi_put_double_(t, s_sum / m);
                divload_mpi_put_(t, "]");
            }
            divload_mpi_put_(t, "], \"repair\": true}");
        } else {
            divload_mpi_put_(t, "\"comp_per_item\": ");
            divload_mpi_put_double_(t, split == DIVLOAD_MPI_SPLIT_EVEN ? alpha : alpha / part->speeds[r]);
            divload_mpi_put_(t, "}");
        }
    }
    divload_mpi_put_(t, "]}\n");
}

/* Plans `items` items (1 to INT_MAX: MPI counts are int) over the ranks with the split
 * `split` (DIVLOAD_MPI_SPLIT_LEARNED, _SPEED or _EVEN, see above) and broadcasts it: on
 * success every rank knows counts, displs, its own my_count and my_displacement, and the
 * summary (summary.makespan is the plan's predicted makespan under the costs written,
 * summary.method how it was found). The observations of every rank are gathered on the
 * root first, for any split (so `all_observations` and the document show them).
 *
 * Returns DIVLOAD_OK or a status, the same on every rank: DIVLOAD_NULL_PARAMETER for a
 * NULL `part` (on every rank or none), DIVLOAD_INVALID_INPUT for items outside [1,
 * INT_MAX] or an unknown split (as the root sees them), DIVLOAD_OUT_OF_MEMORY, or
 * libdivload's status for the document (divload_last_error_message() explains on the
 * root); DIVLOAD_INVALID_INPUT at once for a partition that create did not set up (or
 * that was freed). On failure the previous plan is kept. Collective over the partition's
 * communicator: every rank passes the same `items` and `split`. */
static inline int divload_mpi_partition_plan(divload_mpi_partition *part, long long items, int split) {
    if (part == NULL) return DIVLOAD_NULL_PARAMETER;
    if (part->speeds == NULL || part->counts == NULL) return DIVLOAD_INVALID_INPUT; /* not created */
    const int size = part->size, root = part->root, points = DIVLOAD_MPI_PARTITION_POINTS;
    int status = DIVLOAD_OK;
    /* Oldest first: the ring buffer unrolled. */
    long long items_now[DIVLOAD_MPI_PARTITION_POINTS];
    double seconds_now[DIVLOAD_MPI_PARTITION_POINTS];
    const int seen = part->my_observations, first = seen < points ? 0 : part->my_next;
    for (int k = 0; k < points; k++) {
        const int from = (first + k) % points;
        items_now[k] = k < seen ? part->my_items[from] : 0;
        seconds_now[k] = k < seen ? part->my_seconds[from] : 0.0;
    }
    MPI_Gather(&seen, 1, MPI_INT, part->all_observations, 1, MPI_INT, root, part->comm);
    MPI_Gather(items_now, points, MPI_LONG_LONG, part->all_items, points, MPI_LONG_LONG, root, part->comm);
    MPI_Gather(seconds_now, points, MPI_DOUBLE, part->all_seconds, points, MPI_DOUBLE, root, part->comm);

    int *counts = (int *)divload_mpi_alloc_((size_t)size, sizeof(int));
    int learned_from = 0;
    divload_plan_summary summary;
    memset(&summary, 0, sizeof summary);
    if (part->rank == root) {
        divload_share *shares = NULL;
        char *doc = NULL;
        if (items < 1 || items > INT_MAX || split < DIVLOAD_MPI_SPLIT_LEARNED || split > DIVLOAD_MPI_SPLIT_EVEN) {
            status = DIVLOAD_INVALID_INPUT;
        } else {
            /* alpha: seconds per item at speed 1, from each rank's latest observation. */
            double alpha_sum = 0.0;
            int latest = 0;
            for (int r = 0; r < size; r++) {
                const int m = part->all_observations[r];
                learned_from += m;
                if (m < 1) continue;
                const size_t at = (size_t)r * (size_t)points + (size_t)(m - 1);
                alpha_sum += part->all_seconds[at] * part->speeds[r] / (double)part->all_items[at];
                latest++;
            }
            const double alpha = latest > 0 && isfinite(alpha_sum / latest) && alpha_sum > 0.0
                                     ? alpha_sum / latest
                                     : 1.0;
            if (split != DIVLOAD_MPI_SPLIT_LEARNED) learned_from = 0;
            divload_mpi_text_ count = {NULL, 0, 0};
            divload_mpi_put_partition_(&count, part, items, split, alpha, learned_from);
            doc = (char *)divload_mpi_alloc_(count.len + 1, 1);
            shares = (divload_share *)divload_mpi_alloc_((size_t)size, sizeof(divload_share));
            if (doc == NULL || shares == NULL || counts == NULL) {
                status = DIVLOAD_OUT_OF_MEMORY;
            } else {
                divload_mpi_text_ text = {doc, count.len + 1, 0};
                divload_mpi_put_partition_(&text, part, items, split, alpha, learned_from);
                size_t got = 0;
                status = (int)divload_plan_shares(doc, text.len, shares, (size_t)size, &got, &summary);
                uint64_t total = 0;
                for (int r = 0; status == DIVLOAD_OK && r < size; r++) {
                    /* A document of one worker per rank gives one share per rank, which
                       sum to `items` <= INT_MAX; anything else is a library fault. */
                    if (got != (size_t)size || shares[r].count > (uint64_t)items) status = DIVLOAD_INVALID_INPUT;
                    else counts[r] = (int)shares[r].count;
                    total += shares[r].count;
                }
                if (status == DIVLOAD_OK && total != (uint64_t)items) status = DIVLOAD_INVALID_INPUT;
                /* Equal costs: every split whose largest count is ceil(items / size) is
                   optimal, the plan's among them; the even split is the one that spreads
                   the remainder one by one, as MPI_Scatter's users do. */
                for (int r = 0; status == DIVLOAD_OK && split == DIVLOAD_MPI_SPLIT_EVEN && r < size; r++)
                    counts[r] = (int)(items / size + (r < items % size));
            }
            if (status == DIVLOAD_OK) {
                free(part->document);
                part->document = doc;
                part->document_len = count.len;
                doc = NULL;
            }
        }
        free(doc);
        free(shares);
    }
    int agreed[2] = {status, counts == NULL}, all[2] = {0, 0};
    MPI_Allreduce(agreed, all, 2, MPI_INT, MPI_MAX, part->comm);
    /* The root's status, unless a rank could not allocate. */
    MPI_Bcast(&status, 1, MPI_INT, root, part->comm);
    if (status == DIVLOAD_OK && all[1]) status = DIVLOAD_OUT_OF_MEMORY;
    if (status != DIVLOAD_OK) {
        free(counts);
        return status;
    }
    MPI_Bcast(counts, size, MPI_INT, root, part->comm);
    MPI_Bcast(&learned_from, 1, MPI_INT, root, part->comm);
    /* Plain data; all ranks of one job share its layout. */
    MPI_Bcast(&summary, (int)sizeof summary, MPI_BYTE, root, part->comm);
    int at = 0;
    for (int r = 0; r < size; r++) {
        part->counts[r] = counts[r];
        part->displs[r] = at;
        at += counts[r];
    }
    free(counts);
    part->items = items;
    part->split = split;
    part->learned_from = learned_from;
    part->summary = summary;
    part->my_count = part->counts[part->rank];
    part->my_displacement = part->displs[part->rank];
    return DIVLOAD_OK;
}

/* Sorts `idx[0..n)` by the keys they index (stride `stride`, `len` bytes each), stably, by
 * bottom-up merging through `tmp`; qsort's comparator cannot carry the key's length. */
static inline void divload_mpi_sort_keys_(int *idx, int *tmp, int n, const unsigned char *keys, size_t stride,
                                          size_t len) {
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            const int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                tmp[o++] = memcmp(keys + (size_t)idx[b] * stride, keys + (size_t)idx[a] * stride, len) < 0
                               ? idx[b++]
                               : idx[a++];
            while (a < mid) tmp[o++] = idx[a++];
            while (b < hi) tmp[o++] = idx[b++];
        }
        memcpy(idx, tmp, sizeof(int) * (size_t)n);
        if (width > n / 2) break;
    }
}

/* Weighted splitters for a sample sort (see above): from this rank's `n` records at
 * `records` (`record_size` bytes each), sorted by the key of `key_len` bytes at
 * `key_offset` (memcmp order), writes into `sendcounts[size]` how many of its records,
 * in order, go to each rank so that rank i receives about counts[i] of the last plan.
 * `samples` per rank: 0 for DIVLOAD_MPI_DEFAULT_SAMPLES; more samples, closer counts.
 *
 * Returns DIVLOAD_OK or a status, the same on every rank: DIVLOAD_NULL_PARAMETER for a
 * NULL `part` (on every rank or none), or on any rank a NULL `sendcounts` or NULL
 * `records` with n > 0; DIVLOAD_INVALID_INPUT on any rank for n < 0, samples < 0,
 * key_len 0, a key beyond the record, records not sorted by their key, no plan yet, or
 * more sample bytes than an int counts (size * samples * key_len); DIVLOAD_OUT_OF_MEMORY.
 * `sendcounts` is written only on success. Collective over the partition's
 * communicator: every rank passes the same record layout and `samples`. */
static inline int divload_mpi_partition_splitters(const divload_mpi_partition *part, const void *records, int n,
                                                  size_t record_size, size_t key_offset, size_t key_len,
                                                  int samples, int *sendcounts) {
    if (part == NULL) return DIVLOAD_NULL_PARAMETER;
    const int size = part->size, root = part->root, rank = part->rank;
    const unsigned char *rec = (const unsigned char *)records;
    if (samples == 0) samples = DIVLOAD_MPI_DEFAULT_SAMPLES;
    const int fine = 0, no_mem = 1, invalid = 2, null = 3;
    int problem = fine;
    if (sendcounts == NULL || (rec == NULL && n > 0)) problem = null;
    else if (n < 0 || samples < 0 || key_len == 0 || key_offset > record_size ||
             key_len > record_size - key_offset || part->counts == NULL || part->split < 0 ||
             (double)size * (double)samples * (double)key_len > (double)INT_MAX)
        problem = invalid;
    for (int i = 1; problem == fine && i < n; i++)
        if (memcmp(rec + (size_t)(i - 1) * record_size + key_offset, rec + (size_t)i * record_size + key_offset,
                   key_len) > 0)
            problem = invalid;
    const int c = problem == fine ? (n < samples ? n : samples) : 0;
    unsigned char *mine = NULL, *all = NULL, *splitters = NULL;
    int *taken = NULL, *displs = NULL, *idx = NULL, *tmp = NULL, *kind = NULL;
    long long *held = NULL;
    double *sample_weight = NULL;
    if (problem == fine) {
        mine = (unsigned char *)divload_mpi_alloc_((size_t)c * key_len + 1, 1);
        splitters = (unsigned char *)divload_mpi_alloc_((size_t)size * key_len, 1);
        kind = (int *)divload_mpi_alloc_((size_t)size, sizeof(int));
        if (rank == root) {
            taken = (int *)divload_mpi_alloc_((size_t)size, sizeof(int));
            displs = (int *)divload_mpi_alloc_((size_t)size, sizeof(int));
            held = (long long *)divload_mpi_alloc_((size_t)size, sizeof(long long));
        }
        if (mine == NULL || splitters == NULL || kind == NULL ||
            (rank == root && (taken == NULL || displs == NULL || held == NULL)))
            problem = no_mem;
    }
    int worst = fine;
    MPI_Allreduce(&problem, &worst, 1, MPI_INT, MPI_MAX, part->comm);
    if (worst == fine) {
        for (int k = 0; k < c; k++) {
            const long long at = (2LL * k + 1) * n / (2LL * c);
            memcpy(mine + (size_t)k * key_len, rec + (size_t)at * record_size + key_offset, key_len);
        }
        const long long have = n;
        const int bytes = c * (int)key_len;
        MPI_Gather(&have, 1, MPI_LONG_LONG, held, 1, MPI_LONG_LONG, root, part->comm);
        MPI_Gather(&c, 1, MPI_INT, taken, 1, MPI_INT, root, part->comm);
        int total = 0;
        if (rank == root) {
            for (int r = 0; r < size; r++) {
                displs[r] = total * (int)key_len;
                total += taken[r];
                taken[r] *= (int)key_len;
            }
            all = (unsigned char *)divload_mpi_alloc_((size_t)total * key_len + 1, 1);
            idx = (int *)divload_mpi_alloc_((size_t)total + 1, sizeof(int));
            tmp = (int *)divload_mpi_alloc_((size_t)total + 1, sizeof(int));
            sample_weight = (double *)divload_mpi_alloc_((size_t)total + 1, sizeof(double));
            if (all == NULL || idx == NULL || tmp == NULL || sample_weight == NULL) problem = no_mem;
        }
        MPI_Bcast(&problem, 1, MPI_INT, root, part->comm);
        worst = problem;
        if (worst == fine) {
            MPI_Gatherv(mine, bytes, MPI_BYTE, all, taken, displs, MPI_BYTE, root, part->comm);
            if (rank == root) {
                double records_all = 0.0;
                for (int k = 0; k < total; k++) idx[k] = k;
                divload_mpi_sort_keys_(idx, tmp, total, all, key_len, key_len);
                /* The weight of each sample (by its place in the gather): the records
                   of its rank over the rank's samples. */
                for (int r = 0, at = 0; r < size; r++) {
                    const int got = taken[r] / (int)key_len;
                    for (int k = 0; k < got; k++) sample_weight[at + k] = (double)held[r] / (double)got;
                    at += got;
                    records_all += (double)held[r];
                }
                /* Candidates in key order: 0 is -infinity (estimate 0), q in 1..total the
                   q-th smallest sample key (the weight of the samples before it, plus half
                   its own), total + 1 is +infinity (all records). The estimates do not
                   decrease and neither do the targets, so one walk finds, for each
                   splitter, the candidate closest to its target. */
                int cur = 0;
                double estimate = 0.0, before = 0.0, cumulative = 0.0;
                for (int j = 0; j + 1 < size; j++) {
                    cumulative += (double)part->counts[j];
                    const double target = part->items > 0 ? records_all * (cumulative / (double)part->items) : 0.0;
                    while (cur <= total) {
                        const double w = cur < total ? sample_weight[idx[cur]] : 0.0;
                        const double next = cur < total ? before + w / 2.0 : records_all;
                        const double off_next = next > target ? next - target : target - next;
                        const double off_now = estimate > target ? estimate - target : target - estimate;
                        if (off_next > off_now) break;
                        before += w;
                        estimate = next;
                        cur++;
                    }
                    kind[j] = cur == 0 ? -1 : cur == total + 1 ? 1 : 0;
                    if (kind[j] == 0)
                        memcpy(splitters + (size_t)j * key_len, all + (size_t)idx[cur - 1] * key_len, key_len);
                }
            }
            MPI_Bcast(kind, size, MPI_INT, root, part->comm);
            MPI_Bcast(splitters, size * (int)key_len, MPI_BYTE, root, part->comm);
            int lower = 0;
            for (int j = 0; j + 1 < size; j++) {
                int cut;
                if (kind[j] < 0) {
                    cut = 0;
                } else if (kind[j] > 0) {
                    cut = n;
                } else {
                    int lo = 0, hi = n; /* the first record whose key is not below splitter j */
                    while (lo < hi) {
                        const int mid = lo + (hi - lo) / 2;
                        if (memcmp(rec + (size_t)mid * record_size + key_offset, splitters + (size_t)j * key_len,
                                   key_len) < 0)
                            lo = mid + 1;
                        else
                            hi = mid;
                    }
                    cut = lo;
                }
                if (cut < lower) cut = lower;
                sendcounts[j] = cut - lower;
                lower = cut;
            }
            sendcounts[size - 1] = n - lower;
        }
    }
    free(mine);
    free(all);
    free(splitters);
    free(taken);
    free(displs);
    free(idx);
    free(tmp);
    free(kind);
    free(held);
    free(sample_weight);
    return worst == fine ? DIVLOAD_OK
           : worst == null ? DIVLOAD_NULL_PARAMETER
           : worst == invalid ? DIVLOAD_INVALID_INPUT
                              : DIVLOAD_OUT_OF_MEMORY;
}

/* Makes the counts exact (see above): every rank's `n` records at `in` (each of `type`,
 * sorted, and the ranks' records in rank order one sorted sequence, as after the
 * exchange of a sample sort and a merge) are redistributed so that rank r holds
 * records [displs[r], displs[r] + counts[r]) of that sequence, in order, in `out` (room
 * for my_count records of `type`; not overlapping `in`). `moved` (may be NULL) receives
 * how many records changed rank, the same on every rank.
 *
 * Returns DIVLOAD_OK or a status, the same on every rank: DIVLOAD_NULL_PARAMETER for a
 * NULL `part` (on every rank or none), or on any rank NULL `in` with n > 0 or NULL `out`
 * with my_count > 0; DIVLOAD_INVALID_INPUT when n < 0 on any rank, no plan was made, or
 * the records of all ranks are not the last plan's `items`; DIVLOAD_OUT_OF_MEMORY.
 * Collective over the partition's communicator. */
static inline int divload_mpi_partition_rebalance(const divload_mpi_partition *part, const void *in, int n,
                                                  MPI_Datatype type, void *out, long long *moved) {
    if (part == NULL) return DIVLOAD_NULL_PARAMETER;
    const int size = part->size, rank = part->rank;
    const size_t p = (size_t)size;
    const int fine = 0, no_mem = 1, invalid = 2, null = 3;
    int problem = fine;
    if ((in == NULL && n > 0) || (out == NULL && part->my_count > 0)) problem = null;
    else if (n < 0 || part->counts == NULL || part->split < 0) problem = invalid;
    int *held = (int *)divload_mpi_alloc_(p, sizeof(int));
    int *buf = (int *)divload_mpi_alloc_(p, 4 * sizeof(int));
    if (problem == fine && (held == NULL || buf == NULL)) problem = no_mem;
    int worst = fine;
    MPI_Allreduce(&problem, &worst, 1, MPI_INT, MPI_MAX, part->comm);
    if (worst == fine) {
        MPI_Allgather(&n, 1, MPI_INT, held, 1, MPI_INT, part->comm);
        long long total = 0, stay = 0;
        for (int r = 0; r < size; r++) total += held[r];
        if (total != part->items) worst = invalid;
        if (worst == fine) {
            int *sendcounts = buf, *sdispls = buf + p, *recvcounts = buf + 2 * p, *rdispls = buf + 3 * p;
            /* Rank r holds [start[r], start[r] + held[r]) of the sorted sequence and is
               planned [displs[r], displs[r] + counts[r]): each pair of ranks exchanges the
               overlap of the one's stretch with the other's block. */
            long long start_r = 0, my_start = 0;
            for (int r = 0; r < rank; r++) my_start += held[r];
            const long long my_lo = part->displs[rank], my_hi = my_lo + part->counts[rank];
            for (int r = 0; r < size; r++) {
                const long long lo = part->displs[r], hi = lo + part->counts[r];
                const long long send_lo = my_start > lo ? my_start : lo;
                const long long send_hi = my_start + n < hi ? my_start + n : hi;
                sendcounts[r] = send_hi > send_lo ? (int)(send_hi - send_lo) : 0;
                sdispls[r] = send_hi > send_lo ? (int)(send_lo - my_start) : 0;
                const long long recv_lo = start_r > my_lo ? start_r : my_lo;
                const long long recv_hi = start_r + held[r] < my_hi ? start_r + held[r] : my_hi;
                recvcounts[r] = recv_hi > recv_lo ? (int)(recv_hi - recv_lo) : 0;
                rdispls[r] = recv_hi > recv_lo ? (int)(recv_lo - my_lo) : 0;
                const long long keep_lo = start_r > lo ? start_r : lo;
                const long long keep_hi = start_r + held[r] < hi ? start_r + held[r] : hi;
                if (keep_hi > keep_lo) stay += keep_hi - keep_lo;
                start_r += held[r];
            }
            MPI_Alltoallv(in, sendcounts, sdispls, type, out, recvcounts, rdispls, type, part->comm);
            if (moved != NULL) *moved = total - stay;
        }
    }
    free(held);
    free(buf);
    return worst == fine ? DIVLOAD_OK
           : worst == null ? DIVLOAD_NULL_PARAMETER
           : worst == invalid ? DIVLOAD_INVALID_INPUT
                              : DIVLOAD_OUT_OF_MEMORY;
}

#ifdef __cplusplus
}
#endif

/* The pipelined scatter (several installments): its own header, part of this one. */
#include "divload_mpi_installments.h"

#endif /* DIVLOAD_MPI_H */
