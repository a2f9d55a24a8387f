from typing import Any, Callable, Dict, List, Optional

import numpy as np
import numpy.typing as npt
from mpi4py import MPI

INT_MAX: int
RETURN_TAG: int

class ScatterPlan:
    comm: MPI.Comm
    send_comm: MPI.Comm
    root: int
    send_root: int
    size: int
    my_position: int
    my_count: int
    my_displacement: int
    my_predicted_finish: float
    counts: npt.NDArray[np.int64]
    displs: npt.NDArray[np.int64]
    send_counts: npt.NDArray[np.int64]
    send_displs: npt.NDArray[np.int64]
    positions: npt.NDArray[np.int64]
    predicted_finish: npt.NDArray[np.float64]
    costs: npt.NDArray[np.float64]
    summary: Dict[str, Any]
    def scatterv(self, sendbuf: Any, recvbuf: Any, datatype: Optional[MPI.Datatype] = ...) -> Any: ...
    def gatherv(self, sendbuf: Any, recvbuf: Any, datatype: Optional[MPI.Datatype] = ...) -> Any: ...
    def free(self) -> None: ...
    def __enter__(self) -> ScatterPlan: ...
    def __exit__(self, *exc: Any) -> None: ...

class InstallmentsPlan:
    comm: MPI.Comm
    chunk_comm: MPI.Comm
    root: int
    size: int
    chunk_ranks: npt.NDArray[np.int64]
    chunk_counts: npt.NDArray[np.int64]
    chunk_displs: npt.NDArray[np.int64]
    chunk_times: npt.NDArray[np.float64]
    counts: npt.NDArray[np.int64]
    displs: npt.NDArray[np.int64]
    my_chunks: npt.NDArray[np.int64]
    my_count: int
    my_displacement: int
    my_predicted_finish: float
    summary: Dict[str, Any]
    def scatter(
        self,
        sendbuf: Any,
        recvbuf: Any,
        compute: Optional[Callable[[Any, int], Any]] = ...,
        datatype: Optional[MPI.Datatype] = ...,
    ) -> Any: ...
    def free(self) -> None: ...
    def __enter__(self) -> InstallmentsPlan: ...
    def __exit__(self, *exc: Any) -> None: ...

class ReturnsPlan:
    comm: MPI.Comm
    send_comm: MPI.Comm
    root: int
    send_root: int
    size: int
    my_position: int
    my_return_position: Optional[int]
    my_count: int
    my_displacement: int
    my_predicted_computed: float
    my_predicted_return_end: float
    counts: npt.NDArray[np.int64]
    displs: npt.NDArray[np.int64]
    send_counts: npt.NDArray[np.int64]
    send_displs: npt.NDArray[np.int64]
    positions: npt.NDArray[np.int64]
    return_order: List[int]
    summary: Dict[str, Any]
    def scatterv(self, sendbuf: Any, recvbuf: Any, datatype: Optional[MPI.Datatype] = ...) -> Any: ...
    def gatherv_ordered(
        self,
        sendbuf: Optional[npt.NDArray[Any]],
        recvbuf: Optional[npt.NDArray[Any]],
        on_arrival: Optional[Callable[[int, int, int], None]] = ...,
    ) -> Optional[npt.NDArray[Any]]: ...
    def free(self) -> None: ...
    def __enter__(self) -> ReturnsPlan: ...
    def __exit__(self, *exc: Any) -> None: ...

def scatter_plan(
    comm: MPI.Comm,
    items: int,
    comm_per_item: float,
    comp_per_item: float,
    comm_latency: float = ...,
    comp_latency: float = ...,
    root: int = ...,
    order: str = ...,
    rounding: str = ...,
    root_mode: str = ...,
) -> ScatterPlan: ...
def installments_plan(
    comm: MPI.Comm,
    items: int,
    comm_per_item: float,
    comp_per_item: float,
    comm_latency: float = ...,
    comp_latency: float = ...,
    root: int = ...,
    max_items: Optional[int] = ...,
    available_at: float = ...,
    installments: Any = ...,
    root_mode: str = ...,
    deadline: Optional[float] = ...,
) -> InstallmentsPlan: ...
def returns_plan(
    comm: MPI.Comm,
    items: int,
    comm_per_item: float,
    comp_per_item: float,
    return_per_item: float,
    root: int = ...,
    schedule: str = ...,
    port: str = ...,
) -> ReturnsPlan: ...
def calibrate(
    comm: MPI.Comm,
    compute: Callable[[int], Any],
    sample_items: int,
    root: int = ...,
    item_bytes: int = ...,
) -> Dict[str, float]: ...

class RingCalibration:
    comm: MPI.Comm
    size: int
    cycle_times: npt.NDArray[np.float64]
    costs: npt.NDArray[np.float64]
    boundary: int
    value_bytes: int

class RingPlan:
    comm: MPI.Comm
    ring_comm: Optional[MPI.Cartcomm]
    root: int
    size: int
    members: int
    my_member: bool
    my_position: int
    my_count: int
    my_displacement: int
    my_left: int
    my_right: int
    counts: npt.NDArray[np.int64]
    displs: npt.NDArray[np.int64]
    positions: npt.NDArray[np.int64]
    ring_ranks: npt.NDArray[np.int64]
    summary: Dict[str, Any]
    def free(self) -> None: ...
    def __enter__(self) -> RingPlan: ...
    def __exit__(self, *exc: Any) -> None: ...

def ring_calibrate(
    comm: MPI.Comm,
    compute: Optional[Callable[[int], Any]] = ...,
    sample_columns: int = ...,
    cycle_time: Optional[float] = ...,
    boundary: int = ...,
    value_bytes: int = ...,
    repetitions: int = ...,
) -> RingCalibration: ...
def ring_document(cal: RingCalibration, work: int, boundary: Optional[float] = ..., solver: str = ...) -> Dict[str, Any]: ...
def ring_plan(comm: MPI.Comm, document: Any, root: int = ...) -> RingPlan: ...
