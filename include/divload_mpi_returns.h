/* divload_mpi_returns.h: results back to the root in the planned return order (the
 * lecture notes' return messages: LIFO, FIFO, the best scenario). Part of divload_mpi.h,
 * which includes it. Header-only; hand-written. */
#ifndef DIVLOAD_MPI_RETURNS_H
#define DIVLOAD_MPI_RETURNS_H

#include "divload_mpi_common.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* DIVLOAD_MPI_RETURNS_H */
