/* divload_mpi_installments.h: a pipelined scatter, the data sent in installments so that
 * workers compute their first chunk while the root still sends (the star model with
 * several installments, startup costs, memory caps and release times; docs/derivations/
 * installments.md). Part of divload_mpi.h, which includes it: include either.
 *
 *     divload_worker me = ...;                    // this rank's costs (divload_mpi_calibrate)
 *     divload_mpi_installments plan;
 *     int st = divload_mpi_installments_create(MPI_COMM_WORLD, 0, &me, my_cap, 0.0, n, NULL, &plan);
 *     if (st != DIVLOAD_OK) { ... }               // same status on every rank
 *     recv = malloc(plan.my_count * sizeof(record));
 *     divload_mpi_installments_scatter(&plan, records, record_type, recv, process_chunk, ctx);
 *     divload_mpi_installments_free(&plan);
 *
 * What happens: every rank contributes its costs, its memory cap (the most items it can
 * hold in one installment) and when it can start (MPI_Allgather); the root plans them
 * with divload_plan_installments and broadcasts the chunks. In the scatter, the root sends
 * the chunks in the planned sequence with nonblocking sends, at most two in flight so that
 * the link stays busy yet chunks leave in order (the model's single port); every other
 * rank posts a receive for each of its chunks and calls `compute` on each chunk as soon as
 * it has arrived, in arrival order. The root computes its own share (a copy of its block)
 * after its sends, or while they are in flight with DIVLOAD_ROOT_MODE_OVERLAP. Each rank's
 * chunks are consecutive parts of one block of the root's buffer: `recvbuf` receives its
 * `my_count` items in order, as a one-shot MPI_Scatterv of `counts_by_rank` would.
 *
 * The messages go over a duplicate of `comm`, so they never match the caller's own. */
#ifndef DIVLOAD_MPI_INSTALLMENTS_H
#define DIVLOAD_MPI_INSTALLMENTS_H

#include "divload_mpi_scatter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A plan sent in installments, known on every rank of the communicator it was made on. */
typedef struct divload_mpi_installments {
    MPI_Comm comm;            /* the communicator the plan was made on (not owned) */
    MPI_Comm chunk_comm;      /* a duplicate of comm for the chunks' messages (owned) */
    int root;                 /* the root's rank in comm */
    int size;                 /* number of ranks */
    int chunks;               /* chunks in the plan */
    divload_chunk *chunk;     /* [chunks] the plan in send order; chunk[k].rank is a rank of comm */
    int my_count;             /* items this rank receives, in all its chunks */
    int my_displacement;      /* offset of its block in the root's buffer */
    int my_chunks;            /* how many chunks are this rank's */
    double my_predicted_finish; /* when its last chunk is computed, seconds after the scatter starts */
    int *counts_by_rank;      /* [size] items of each rank of comm (for MPI_Gatherv of the results) */
    int *displs_by_rank;      /* [size] offset of each rank's block */
    divload_plan_summary summary; /* makespan, certified lower bound, gap, method, items */
} divload_mpi_installments;

/* Your computation of one chunk: `count` items at `items` (inside this rank's recvbuf),
 * which were items [first, first + count) of the root's buffer. */
typedef void (*divload_mpi_chunk_fn)(void *ctx, void *items, int count, long long first);

static inline void divload_mpi_installments_release_(divload_mpi_installments *p) {
    free(p->chunk);
    free(p->counts_by_rank);
    free(p->displs_by_rank);
    p->chunk = NULL;
    p->counts_by_rank = p->displs_by_rank = NULL;
}

/* MPI_Waitall one request at a time: GCC reads MPICH's MPI_STATUSES_IGNORE (a cast
 * constant) as an empty array and rejects the call under -Werror=stringop-overflow. */
static inline int divload_mpi_wait_all_(int n, MPI_Request *requests) {
    int err = MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        int e = MPI_Wait(&requests[i], MPI_STATUS_IGNORE);
        if (err == MPI_SUCCESS) err = e;
    }
    return err;
}

/* Plans the scatter of `items` items held by `root` over all ranks of `comm`, in
 * installments.
 *
 * `my_costs` are this rank's costs (the root's comm costs are replaced by 0, as in
 * divload_mpi_plan_create). `my_max_items` is the most items this rank can hold in one
 * installment (UINT64_MAX: no cap), `my_available_at` when it can start computing
 * (seconds after the scatter starts; 0 for at once). `options` (root mode, installments
 * per worker, a deadline) may be NULL for the defaults and only matters on the root; with
 * a deadline, `summary.items` is what finishes in time and only those items are sent
 * (the first summary.items of the root's buffer, laid out as the chunks say).
 *
 * Returns DIVLOAD_OK or a status, the same on every rank: the planner's (on the root,
 * divload_last_error_message() explains: a cost, cap or release time out of range, caps
 * that cannot hold the items), DIVLOAD_INVALID_INPUT for `root` outside [0, size),
 * DIVLOAD_NULL_PARAMETER when `my_costs` or `plan` is NULL on any rank,
 * DIVLOAD_OUT_OF_MEMORY when any rank cannot allocate the plan, DIVLOAD_OVERFLOW for
 * items beyond INT_MAX (MPI takes int counts). On failure `plan` (if not NULL) holds
 * nothing to free. Collective over `comm`: every rank passes the same `root`. */
static inline int divload_mpi_installments_create(MPI_Comm comm, int root, const divload_worker *my_costs,
                                                  uint64_t my_max_items, double my_available_at, long long items,
                                                  const divload_installment_options *options,
                                                  divload_mpi_installments *plan) {
    int rank, size, status = DIVLOAD_OK;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (plan != NULL) {
        memset(plan, 0, sizeof *plan);
        plan->comm = comm;
        plan->chunk_comm = MPI_COMM_NULL;
        plan->root = root;
        plan->size = size;
    }
    if (root < 0 || root >= size) return DIVLOAD_INVALID_INPUT; /* the same on every rank */

    const size_t n = (size_t)size;
    /* The most chunks a plan has (divload.h): the root's buffer is sized once, before planning. */
    const size_t most = divload_installment_chunks_max(n);
    int ok[2] = {plan != NULL && my_costs != NULL, 0}, all_ok[2] = {0, 0};
    double *costs = NULL, *release = NULL;
    uint64_t *caps = NULL;
    divload_worker *workers = NULL;
    if (ok[0]) {
        plan->chunk = (divload_chunk *)divload_mpi_alloc_(most, sizeof(divload_chunk));
        plan->counts_by_rank = (int *)divload_mpi_alloc_(n, sizeof(int));
        plan->displs_by_rank = (int *)divload_mpi_alloc_(n, sizeof(int));
        costs = (double *)divload_mpi_alloc_(n, 5 * sizeof(double));
        caps = (uint64_t *)divload_mpi_alloc_(n, sizeof(uint64_t));
        ok[1] = plan->chunk && plan->counts_by_rank && plan->displs_by_rank && costs && caps;
        if (ok[1] && rank == root) {
            workers = (divload_worker *)divload_mpi_alloc_(n, sizeof(divload_worker));
            release = (double *)divload_mpi_alloc_(n, sizeof(double));
            ok[1] = workers && release;
        }
    }
    MPI_Allreduce(ok, all_ok, 2, MPI_INT, MPI_LAND, comm);
    if (!all_ok[0] || !all_ok[1]) {
        if (plan != NULL) divload_mpi_installments_release_(plan);
        free(costs), free(caps), free(workers), free(release);
        return all_ok[0] ? DIVLOAD_OUT_OF_MEMORY : DIVLOAD_NULL_PARAMETER;
    }

    double mine[5] = {my_costs->comm_latency, my_costs->comm_per_item, my_costs->comp_latency,
                      my_costs->comp_per_item, my_available_at};
    if (rank == root) mine[0] = mine[1] = 0.0;
    MPI_Allgather(mine, 5, MPI_DOUBLE, costs, 5, MPI_DOUBLE, comm);
    MPI_Allgather(&my_max_items, 1, MPI_UINT64_T, caps, 1, MPI_UINT64_T, comm);

    int chunks = 0;
    if (rank == root) {
        if (items < 0 || items > INT_MAX) {
            status = items < 0 ? DIVLOAD_INVALID_INPUT : DIVLOAD_OVERFLOW;
        } else {
            for (size_t r = 0; r < n; r++) {
                workers[r].comm_latency = costs[5 * r];
                workers[r].comm_per_item = costs[5 * r + 1];
                workers[r].comp_latency = costs[5 * r + 2];
                workers[r].comp_per_item = costs[5 * r + 3];
                release[r] = costs[5 * r + 4];
            }
            size_t written = 0;
            status = (int)divload_plan_installments(workers, n, (size_t)root, (uint64_t)items, caps, release, options,
                                                    plan->chunk, most, &written, &plan->summary);
            chunks = (int)written;
        }
    }
    free(costs), free(caps), free(workers), free(release);
    MPI_Bcast(&status, 1, MPI_INT, root, comm);
    if (status != DIVLOAD_OK) {
        divload_mpi_installments_release_(plan);
        return status;
    }
    MPI_Bcast(&chunks, 1, MPI_INT, root, comm);
    /* Plain data; all ranks of one job share its layout. */
    MPI_Bcast(plan->chunk, (int)((size_t)chunks * sizeof(divload_chunk)), MPI_BYTE, root, comm);
    MPI_Bcast(&plan->summary, (int)sizeof plan->summary, MPI_BYTE, root, comm);
    plan->chunks = chunks;
    for (int k = 0; k < chunks; k++) {
        const divload_chunk *c = &plan->chunk[k];
        int r = (int)c->rank;
        if (plan->counts_by_rank[r] == 0) plan->displs_by_rank[r] = (int)c->displacement;
        plan->counts_by_rank[r] += (int)c->count;
        if (r == rank) {
            plan->my_chunks++;
            if (c->compute_end > plan->my_predicted_finish) plan->my_predicted_finish = c->compute_end;
        }
    }
    plan->my_count = plan->counts_by_rank[rank];
    plan->my_displacement = plan->displs_by_rank[rank];
    MPI_Comm_dup(comm, &plan->chunk_comm);
    return DIVLOAD_OK;
}

/* Runs the plan: the root sends `sendbuf` (its items in their original order, `type`
 * each) chunk by chunk in the planned sequence; every rank receives its `my_count` items
 * into `recvbuf` and calls `compute` (may be NULL) on each of its chunks as it arrives.
 * Returns MPI_SUCCESS or the first MPI error code. Collective over the plan's
 * communicator. */
static inline int divload_mpi_installments_scatter(const divload_mpi_installments *plan, const void *sendbuf,
                                                   MPI_Datatype type, void *recvbuf, divload_mpi_chunk_fn compute,
                                                   void *ctx) {
    int rank, err = MPI_SUCCESS;
    MPI_Comm_rank(plan->comm, &rank);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(type, &lb, &extent);
    const int tag = 1;
    /* This rank's chunk at offset `d` of the root's buffer sits at d - my_displacement in recvbuf. */
#define DIVLOAD_MPI_AT_(buf, d) ((char *)(buf) + (MPI_Aint)((d) - (uint64_t)plan->my_displacement) * extent)
    if (rank == plan->root) {
        MPI_Request flight[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        int next = 0;
        /* The root's own chunk is computed while its sends are in flight when the plan says
           so (it starts before the last chunk has left), else after them. */
        const divload_chunk *own = NULL;
        double last_send = 0.0;
        for (int k = 0; k < plan->chunks; k++) {
            const divload_chunk *c = &plan->chunk[k];
            if ((int)c->rank == rank) own = c;
            else if (c->send_end > last_send) last_send = c->send_end;
        }
        const int own_during = own != NULL && own->compute_start < last_send;
        MPI_Request *all = NULL;
        if (own_during) {
            all = (MPI_Request *)divload_mpi_alloc_((size_t)plan->chunks + 1, sizeof(MPI_Request));
            if (all == NULL) return MPI_ERR_NO_MEM;
        }
        int posted = 0;
        for (int k = 0; k < plan->chunks && err == MPI_SUCCESS; k++) {
            const divload_chunk *c = &plan->chunk[k];
            if ((int)c->rank == rank) continue;
            const char *from = (const char *)sendbuf + (MPI_Aint)c->displacement * extent;
            if (own_during) {
                err = MPI_Isend(from, (int)c->count, type, (int)c->rank, tag, plan->chunk_comm, &all[posted++]);
            } else {
                /* At most two in flight: the next chunk is ready to go when the current one
                   leaves, and none overtakes an earlier one on the root's port. */
                if (flight[next] != MPI_REQUEST_NULL) err = MPI_Wait(&flight[next], MPI_STATUS_IGNORE);
                if (err == MPI_SUCCESS)
                    err = MPI_Isend(from, (int)c->count, type, (int)c->rank, tag, plan->chunk_comm, &flight[next]);
                next ^= 1;
            }
        }
        if (!own_during && err == MPI_SUCCESS) err = divload_mpi_wait_all_(2, flight);
        if (own != NULL && err == MPI_SUCCESS) {
            /* The root's block, copied with the datatype's own layout. */
            err = MPI_Sendrecv((const char *)sendbuf + (MPI_Aint)own->displacement * extent, (int)own->count, type,
                               rank, tag, DIVLOAD_MPI_AT_(recvbuf, own->displacement), (int)own->count, type, rank,
                               tag, plan->chunk_comm, MPI_STATUS_IGNORE);
            if (err == MPI_SUCCESS && compute != NULL)
                compute(ctx, DIVLOAD_MPI_AT_(recvbuf, own->displacement), (int)own->count,
                        (long long)own->displacement);
        }
        if (own_during) {
            int done = divload_mpi_wait_all_(posted, all);
            if (err == MPI_SUCCESS) err = done;
            free(all);
        }
        return err;
    }
    if (plan->my_chunks == 0) return MPI_SUCCESS;
    MPI_Request *recv = (MPI_Request *)divload_mpi_alloc_((size_t)plan->my_chunks, sizeof(MPI_Request));
    const divload_chunk **mine = (const divload_chunk **)divload_mpi_alloc_((size_t)plan->my_chunks, sizeof *mine);
    if (recv == NULL || mine == NULL) {
        free(recv);
        free((void *)mine);
        return MPI_ERR_NO_MEM;
    }
    /* Every receive posted at once, in send order: MPI's non-overtaking rule matches the
       root's k-th message to this rank with the k-th receive. */
    int m = 0;
    for (int k = 0; k < plan->chunks && err == MPI_SUCCESS; k++) {
        const divload_chunk *c = &plan->chunk[k];
        if ((int)c->rank != rank) continue;
        mine[m] = c;
        err = MPI_Irecv(DIVLOAD_MPI_AT_(recvbuf, c->displacement), (int)c->count, type, plan->root, tag,
                        plan->chunk_comm, &recv[m]);
        m++;
    }
    for (int i = 0; i < m && err == MPI_SUCCESS; i++) {
        err = MPI_Wait(&recv[i], MPI_STATUS_IGNORE);
        if (err == MPI_SUCCESS && compute != NULL)
            compute(ctx, DIVLOAD_MPI_AT_(recvbuf, mine[i]->displacement), (int)mine[i]->count,
                    (long long)mine[i]->displacement);
    }
    free(recv);
    free((void *)mine);
    return err;
#undef DIVLOAD_MPI_AT_
}

/* Frees the plan's arrays and its duplicate communicator. Collective (MPI_Comm_free). */
static inline void divload_mpi_installments_free(divload_mpi_installments *plan) {
    if (plan == NULL) return;
    if (plan->chunk_comm != MPI_COMM_NULL) MPI_Comm_free(&plan->chunk_comm);
    divload_mpi_installments_release_(plan);
}

#ifdef __cplusplus
}
#endif

#endif /* DIVLOAD_MPI_INSTALLMENTS_H */
