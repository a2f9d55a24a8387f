! The seismic pattern in miniature (genaud2003 §4), in Fortran with mpi_f08: the root holds
! n ray records, scatters them, every rank processes its share, the run ends when the last
! rank finishes. The C version is examples/mpi/seismic.c.
!
! Ranks are made heterogeneous on purpose: rank r does `work * slowdown(r)` units of busy
! work per record. Every rank times its own processing on a sample, the root times its
! link to each rank, rank 0 plans with module divload, and the records go out with
! MPI_Scatterv on a communicator ranked in the planned send order (by decreasing
! bandwidth, the root last), since the plan's finish times assume that order.
!
!     cmake -S examples/fortran -B build -DCMAKE_PREFIX_PATH=PREFIX && cmake --build build
!     mpirun -np 4 build/seismic [--records N] [--work W] [--check]
!
! --check exits with status 1 unless every record arrived exactly once.
module seismic_work
  use, intrinsic :: iso_c_binding, only: c_double, c_int64_t
  implicit none
  private
  public :: ray_record, process, slowdown

  type, bind(c) :: ray_record
    integer(c_int64_t) :: id
    real(c_double) :: ray(6)   ! source, receiver, ... in the real code
  end type ray_record

  ! Keeps the busy work from being optimised away.
  real(c_double), volatile, public :: sink = 0

contains

  pure function slowdown(rank) result(s)
    integer, intent(in) :: rank
    integer :: s
    integer, parameter :: pattern(0:3) = [1, 3, 2, 4]
    s = pattern(modulo(rank, 4))
  end function slowdown

  ! One pass over the records with this rank's emulated speed.
  subroutine process(recs, rank, work)
    type(ray_record), intent(in) :: recs(:)
    integer, intent(in) :: rank, work
    real(c_double) :: acc
    integer :: i, k
    acc = 0
    do i = 1, size(recs)
      do k = 1, work * slowdown(rank)
        acc = acc * 0.999999_c_double + recs(i)%ray(modulo(k, 6) + 1) * 1e-6_c_double
      end do
    end do
    sink = acc
  end subroutine process
end module seismic_work

program seismic
  use, intrinsic :: iso_c_binding, only: c_double, c_int64_t, c_sizeof
  use mpi_f08
  use divload
  use seismic_work
  implicit none

  integer, parameter :: sample_size = 64
  type(ray_record), allocatable :: records(:), mine(:)
  type(ray_record) :: sample(sample_size)
  type(divload_worker), allocatable :: workers(:)
  type(divload_assignment), allocatable :: assignments(:)
  type(divload_summary) :: summary
  type(MPI_Datatype) :: rec_type
  type(MPI_Comm) :: send_comm
  real(c_double), allocatable :: comp(:), link(:), finishes(:)
  integer, allocatable :: position(:), counts(:), displs(:), arrived(:, :)
  integer :: mine_ok(3)
  real(c_double) :: my_comp, t0, finish
  integer :: rank, nranks, n, work, status, i, r, k, my_count, my_displ, ok, failed
  logical :: check

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call read_arguments(n, work, check)

  call MPI_Type_contiguous(int(c_sizeof(sample(1))), MPI_BYTE, rec_type)
  call MPI_Type_commit(rec_type)

  ! The root's records: record i (from 0) has id i, so where each one lands can be checked.
  if (rank == 0) then
    allocate (records(n))
    do i = 1, n
      records(i)%id = i - 1
      records(i)%ray = [(modulo(0.618034_c_double * (i + k), 1.0_c_double), k = 1, 6)]
    end do
  else
    allocate (records(0))
  end if

  ! 1. Costs: every rank times its own processing; the root times its link to each rank.
  do i = 1, sample_size
    sample(i)%id = i
    sample(i)%ray = [(0.5_c_double + 0.01_c_double * k, k = 1, 6)]
  end do
  ! In turn, so that ranks sharing a core do not slow each other's measurement.
  my_comp = 0
  do r = 0, nranks - 1
    if (rank == r) my_comp = seconds_per_record(sample, rank, work)
    call MPI_Barrier(MPI_COMM_WORLD)
  end do
  allocate (comp(nranks), link(nranks))
  call MPI_Gather(my_comp, 1, MPI_DOUBLE_PRECISION, comp, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)
  link = 0
  do r = 1, nranks - 1
    ! Synchronous sends, so each time covers the whole transfer; the fastest of three.
    do k = 1, 3
      if (rank == 0) then
        t0 = MPI_Wtime()
        call MPI_Ssend(sample, sample_size, rec_type, r, 0, MPI_COMM_WORLD)
        t0 = (MPI_Wtime() - t0) / sample_size
        if (k == 1 .or. t0 < link(r + 1)) link(r + 1) = t0
      else if (rank == r) then
        call MPI_Recv(sample, sample_size, rec_type, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      end if
    end do
  end do

  ! 2. Rank 0 plans; every rank learns the send order, counts and displacements.
  allocate (position(nranks), counts(nranks), displs(nranks), assignments(nranks), workers(nranks))
  if (rank == 0) then
    do r = 1, nranks
      workers(r) = divload_worker(comm_latency=0, comm_per_item=link(r), comp_latency=0, &
          comp_per_item=comp(r))
    end do
    status = plan(workers, 0, int(n, c_int64_t), assignments, summary)
    if (status /= DIVLOAD_OK) then
      write (*, '(a, i0, 4a)') 'seismic: planning failed, status ', status, ' (', &
          status_message(status), '): ', last_error_message()
    else
      ! assignments(k) is the k-th served; counts and displacements in that order.
      do k = 1, nranks
        position(assignments(k)%rank + 1) = k - 1
        counts(k) = int(assignments(k)%count)
        displs(k) = int(assignments(k)%displacement)
      end do
    end if
  end if
  call MPI_Bcast(status, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (status /= DIVLOAD_OK) call MPI_Abort(MPI_COMM_WORLD, 4)
  call MPI_Bcast(position, nranks, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call MPI_Bcast(counts, nranks, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call MPI_Bcast(displs, nranks, MPI_INTEGER, 0, MPI_COMM_WORLD)

  ! 3. Scatter in send order: send_comm ranks the processes by their send position.
  call MPI_Comm_split(MPI_COMM_WORLD, 0, position(rank + 1), send_comm)
  my_count = counts(position(rank + 1) + 1)
  my_displ = displs(position(rank + 1) + 1)
  allocate (mine(max(1, my_count)))
  call MPI_Barrier(MPI_COMM_WORLD)
  t0 = MPI_Wtime()
  call MPI_Scatterv(records, counts, displs, rec_type, mine, my_count, rec_type, position(1), send_comm)
  call process(mine(1:my_count), rank, work)
  finish = MPI_Wtime() - t0

  ! 4. Every record exactly once: each rank's block must hold ids displ .. displ+count-1,
  ! and the root checks that the blocks tile 0 .. n-1.
  ok = 1
  do i = 1, my_count
    if (mine(i)%id /= my_displ + i - 1) ok = 0
  end do
  allocate (arrived(3, nranks), finishes(nranks))
  mine_ok = [my_displ, my_count, ok]
  call MPI_Gather(mine_ok, 3, MPI_INTEGER, arrived, 3, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call MPI_Gather(finish, 1, MPI_DOUBLE_PRECISION, finishes, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)
  failed = 0
  if (rank == 0) then
    failed = merge(0, 1, tiles(arrived, n))
    write (*, '(a, i0, a, i0, a, i0, a)') 'divload Fortran seismic example: ', nranks, ' ranks, ', n, &
        ' records, ', work, ' work units per record'
    write (*, '(a)') 'rank slowdown  link s/record  compute s/record  position    count  predicted s  measured s'
    do r = 1, nranks
      k = position(r) + 1
      write (*, '(i4, i9, es15.3, es18.3, i10, i9, f13.4, f12.4)') r - 1, slowdown(r - 1), link(r), comp(r), &
          position(r), counts(k), assignments(k)%finish, finishes(r)
    end do
    write (*, '(a, f7.4, a, f7.4, a)') 'balanced (divload): predicted ', summary%makespan, &
        ' s, measured ', maxval(finishes), ' s'
    write (*, '(a, f7.4, a)') 'even split:         predicted ', summary%uniform_makespan, ' s'
    if (failed == 0) then
      write (*, '(a)') 'records: every record arrived exactly once'
    else
      write (*, '(a)') 'records: LOST OR DUPLICATED RECORDS'
    end if
  end if
  call MPI_Bcast(failed, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)

  call MPI_Comm_free(send_comm)
  call MPI_Type_free(rec_type)
  call MPI_Finalize()
  if (check .and. failed /= 0) error stop 1

contains

  subroutine read_arguments(n, work, check)
    integer, intent(out) :: n, work
    logical, intent(out) :: check
    character(len=64) :: arg
    integer :: i, stat
    n = 100000
    work = 2000
    check = .false.
    stat = 0
    i = 1
    do while (i <= command_argument_count() .and. stat == 0)
      call get_command_argument(i, arg)
      select case (arg)
      case ('--records')
        i = i + 1
        call get_command_argument(i, arg)
        read (arg, *, iostat=stat) n
      case ('--work')
        i = i + 1
        call get_command_argument(i, arg)
        read (arg, *, iostat=stat) work
      case ('--check')
        check = .true.
      case default
        stat = 1
      end select
      i = i + 1
    end do
    if (stat /= 0 .or. n < 1 .or. work < 1) then
      if (rank == 0) write (*, '(a)') 'usage: seismic [--records N >= 1] [--work W >= 1] [--check]'
      call MPI_Abort(MPI_COMM_WORLD, 2)
    end if
  end subroutine read_arguments

  ! This rank's processing time per record, from repeated passes over the sample until
  ! they take long enough for MPI_Wtime to resolve.
  function seconds_per_record(sample, rank, work) result(s)
    type(ray_record), intent(in) :: sample(:)
    integer, intent(in) :: rank, work
    real(c_double) :: s, start
    integer :: passes
    passes = 0
    start = MPI_Wtime()
    do
      call process(sample, rank, work)
      passes = passes + 1
      if (MPI_Wtime() - start > 2e-3_c_double) exit
    end do
    s = (MPI_Wtime() - start) / (passes * size(sample))
  end function seconds_per_record

  ! .true. when every block arrived intact and the blocks (displacement, count) cover
  ! 0 .. n-1 with no gap and no overlap.
  logical function tiles(arrived, n)
    integer, intent(in) :: arrived(:, :), n
    logical :: used(size(arrived, 2))
    integer :: next, j
    tiles = all(arrived(3, :) == 1) .and. sum(int(arrived(2, :), c_int64_t)) == n
    used = arrived(2, :) == 0
    next = 0
    do while (tiles .and. next < n)
      ! The block that starts where the previous one ended.
      j = findloc_block(arrived, used, next)
      if (j == 0) then
        tiles = .false.
      else
        used(j) = .true.
        next = next + arrived(2, j)
      end if
    end do
    tiles = tiles .and. all(used)
  end function tiles

  integer function findloc_block(arrived, used, start)
    integer, intent(in) :: arrived(:, :), start
    logical, intent(in) :: used(:)
    integer :: j
    findloc_block = 0
    do j = 1, size(arrived, 2)
      if (.not. used(j) .and. arrived(1, j) == start) then
        findloc_block = j
        return
      end if
    end do
  end function findloc_block
end program seismic
