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

/* One header per model over the shared pieces; including this one includes them all. */
#include "divload_mpi_common.h"
#include "divload_mpi_scatter.h"
#include "divload_mpi_returns.h"
#include "divload_mpi_multicluster.h"
#include "divload_mpi_ring.h"
#include "divload_mpi_partition.h"
#include "divload_mpi_installments.h"

#endif /* DIVLOAD_MPI_H */
