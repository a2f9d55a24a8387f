! Module divload: libdivload for Fortran 2008 codes, typed and allocation-safe.
!
! Everything of the generated module divload_c is re-exported: the DIVLOAD_* constants
! and status codes, the bind(c) derived types (divload_worker, divload_summary, ...) and
! the raw C functions under their C names (every pointer a type(c_ptr)). On top of them:
!
!   status = plan_counts(workers, root, items, counts, displs [, summary] [, options])
!   status = plan(workers, root, items, assignments [, summary] [, options])
!   status = plan_json(document, result)
!   status = plan_shares(document, shares [, summary])
!   status = plan_installments(workers, root, items, chunks [, summary] [, options]
!                              [, max_items] [, available_at])
!   status = plan_chunks(document, chunks [, summary])
!   text   = method_name(summary)
!   status = models_json(result)
!   text   = status_message(status)
!   text   = last_error_message()
!   ok     = library_version_matches()
!
! Every function returns the C library's status (integer(c_int32_t), DIVLOAD_OK on success)
! and never stops the program: bad input is reported, never trapped, since one rank
! aborting ends a whole MPI job. Outputs are written only on success.
module divload
  use, intrinsic :: iso_c_binding, only: c_associated, c_char, c_double, c_f_pointer, c_int, c_int32_t, &
      c_int64_t, c_loc, c_null_char, c_null_ptr, c_ptr, c_size_t
  use divload_c
  implicit none
  ! The iso_c_binding names are this module's tools, not part of its interface; the
  ! generated module's names are (hence the public default).
  private :: c_associated, c_char, c_double, c_f_pointer, c_int, c_int32_t, c_int64_t, c_loc, &
      c_null_char, c_null_ptr, c_ptr, c_size_t

  ! plan_counts picks the C function by the kind of the counts: integer(c_int) for
  ! MPI_Scatterv, integer(c_int64_t) for the MPI-4 large-count MPI_Scatterv (its counts
  ! and displacements of kind MPI_COUNT_KIND and MPI_ADDRESS_KIND are 64-bit).
  interface plan_counts
    module procedure plan_counts_int, plan_counts_int64
  end interface plan_counts
  public :: plan_counts, plan, plan_json, plan_shares, plan_installments, plan_chunks, method_name, models_json, status_message, &
      last_error_message, library_version_matches
  private :: plan_counts_int, plan_counts_int64, document_call, from_c_string, copy_chars, &
      to_c_chars, rank_arg, options_arg, summary_arg, strlen

  ! The first guess for a result document's size. A larger result costs a second call
  ! (which plans again), so the guess grows with the document, up to a cap that keeps a
  ! large document from reserving memory its result may never need.
  integer(c_size_t), parameter, private :: RESULT_GUESS = 16384, RESULT_GUESS_CAP = 16777216

  interface
    ! The C library's strlen, to read the NUL-terminated messages divload returns.
    function strlen(s) bind(c, name="strlen") result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function strlen
  end interface

contains

  ! The description of a status number (DIVLOAD_OK .. DIVLOAD_STATUS_LAST, or any other
  ! number: "unknown status"), from divload_status_message.
  function status_message(status) result(text)
    integer(c_int32_t), intent(in) :: status
    character(len=:), allocatable :: text
    text = from_c_string(divload_status_message(status))
  end function status_message

  ! The message of this thread's last failed divload call ("worker 3: comp_per_item must
  ! be finite and > 0, got NaN"); empty when none has failed.
  function last_error_message() result(text)
    character(len=:), allocatable :: text
    character(kind=c_char), allocatable, target :: buf(:)
    integer(c_size_t) :: n, again
    integer :: stat
    n = divload_last_error_message(c_null_ptr, 0_c_size_t)
    allocate (buf(n + 1), stat=stat)
    if (stat /= 0) then
      text = ''
      return
    end if
    again = divload_last_error_message(c_loc(buf), n + 1)
    allocate (character(len=min(n, again)) :: text)
    call copy_chars(buf, text)
  end function last_error_message

  ! .true. when the library loaded at run time is the version whose header generated
  ! divload_c (DIVLOAD_VERSION_NUMBER).
  function library_version_matches() result(ok)
    logical :: ok
    ok = divload_library_version() == DIVLOAD_VERSION_NUMBER
  end function library_version_matches

  ! Plans a scatter of `items` items over the workers (rank r is workers(r + 1)) with
  ! `root` (a rank, from 0) holding the data; writes counts(r + 1) and displs(r + 1) for
  ! rank r, ready for MPI_Scatterv. Statuses as divload_plan_counts: DIVLOAD_INVALID_INPUT
  ! for no workers, no items, a bad cost (NaN, negative, comp_per_item 0) or a root
  ! outside 0 .. size(workers) - 1, DIVLOAD_BUFFER_TOO_SMALL when counts or displs has
  ! fewer elements than workers, DIVLOAD_OVERFLOW for items beyond huge(counts) (or
  ! negative: C reads it as unsigned). counts and displs keep their values on failure.
  function plan_counts_int(workers, root, items, counts, displs, summary, options) result(status)
    type(divload_worker), intent(in), target, contiguous :: workers(:)
    integer, intent(in) :: root
    integer(c_int64_t), intent(in) :: items
    integer(c_int), intent(inout), target, contiguous :: counts(:), displs(:)
    type(divload_summary), intent(inout), optional, target :: summary
    type(divload_options), intent(in), optional, target :: options
    integer(c_int32_t) :: status
    type(divload_worker), target :: no_workers(1)
    integer(c_int), target :: no_counts(1), no_displs(1)
    type(c_ptr) :: w, c, d
    ! c_loc of a zero-sized array is not Fortran; a pointer to a spare element with
    ! length 0 lets C give its own status and message for the empty input.
    w = c_loc(no_workers)
    c = c_loc(no_counts)
    d = c_loc(no_displs)
    if (size(workers) > 0) w = c_loc(workers)
    if (size(counts) > 0) c = c_loc(counts)
    if (size(displs) > 0) d = c_loc(displs)
    status = divload_plan_counts(w, size(workers, kind=c_size_t), rank_arg(root), items, &
        options_arg(options), c, size(counts, kind=c_size_t), d, size(displs, kind=c_size_t), &
        summary_arg(summary))
  end function plan_counts_int

  ! As plan_counts_int with 64-bit counts and displacements (divload_plan_counts64): up
  ! to 2^53 items.
  function plan_counts_int64(workers, root, items, counts, displs, summary, options) result(status)
    type(divload_worker), intent(in), target, contiguous :: workers(:)
    integer, intent(in) :: root
    integer(c_int64_t), intent(in) :: items
    integer(c_int64_t), intent(inout), target, contiguous :: counts(:), displs(:)
    type(divload_summary), intent(inout), optional, target :: summary
    type(divload_options), intent(in), optional, target :: options
    integer(c_int32_t) :: status
    type(divload_worker), target :: no_workers(1)
    integer(c_int64_t), target :: no_counts(1), no_displs(1)
    type(c_ptr) :: w, c, d
    w = c_loc(no_workers)
    c = c_loc(no_counts)
    d = c_loc(no_displs)
    if (size(workers) > 0) w = c_loc(workers)
    if (size(counts) > 0) c = c_loc(counts)
    if (size(displs) > 0) d = c_loc(displs)
    status = divload_plan_counts64(w, size(workers, kind=c_size_t), rank_arg(root), items, &
        options_arg(options), c, size(counts, kind=c_size_t), d, size(displs, kind=c_size_t), &
        summary_arg(summary))
  end function plan_counts_int64

  ! Plans a scatter and writes one divload_assignment per worker into assignments, in
  ! send order (assignments(1) is served first; its %rank counts from 0). Statuses as
  ! plan_counts, without the int limit.
  function plan(workers, root, items, assignments, summary, options) result(status)
    type(divload_worker), intent(in), target, contiguous :: workers(:)
    integer, intent(in) :: root
    integer(c_int64_t), intent(in) :: items
    type(divload_assignment), intent(inout), target, contiguous :: assignments(:)
    type(divload_summary), intent(inout), optional, target :: summary
    type(divload_options), intent(in), optional, target :: options
    integer(c_int32_t) :: status
    type(divload_worker), target :: no_workers(1)
    type(divload_assignment), target :: no_assignments(1)
    type(c_ptr) :: w, a
    w = c_loc(no_workers)
    a = c_loc(no_assignments)
    if (size(workers) > 0) w = c_loc(workers)
    if (size(assignments) > 0) a = c_loc(assignments)
    status = divload_plan(w, size(workers, kind=c_size_t), rank_arg(root), items, &
        options_arg(options), a, size(assignments, kind=c_size_t), summary_arg(summary))
  end function plan

  ! Plans a document of any model (the JSON of `divload plan`: "model" scatter, returns,
  ! multicluster, partition or ring; models_json lists them) and returns the result
  ! document in `result`, allocated to its exact length. DIVLOAD_JSON for a malformed
  ! document or one that breaks its model's schema (last_error_message names the place);
  ! `result` is '' on failure.
  function plan_json(document, result) result(status)
    character(len=*), intent(in) :: document
    character(len=:), allocatable, intent(out) :: result
    integer(c_int32_t) :: status
    character(kind=c_char), allocatable, target :: doc(:)
    integer :: stat
    allocate (doc(max(1, len(document))), stat=stat)
    if (stat /= 0) then
      result = ''
      status = DIVLOAD_OUT_OF_MEMORY
      return
    end if
    call to_c_chars(document, doc)
    status = document_call(.true., doc, len(document, kind=c_size_t), &
        min(RESULT_GUESS + 4 * len(document, kind=c_size_t), RESULT_GUESS_CAP), result)
  end function plan_json

  ! Plans a document of any model and returns one divload_share per worker in `shares`,
  ! allocated to the document's workers (entries with "count": k expanded) in document
  ! order: %count, %displacement (from 0) and %position (from 0 in the plan's order: send
  ! order, ring order; -1 when the plan leaves the worker out). `summary` (optional):
  ! makespan, lower bound, gap, exact, method (method_name). `shares` has no elements on
  ! failure. Statuses as divload_plan_shares.
  function plan_shares(document, shares, summary) result(status)
    character(len=*), intent(in) :: document
    type(divload_share), allocatable, intent(out) :: shares(:)
    type(divload_plan_summary), intent(inout), optional, target :: summary
    integer(c_int32_t) :: status
    character(kind=c_char), allocatable, target :: doc(:)
    type(divload_share), allocatable, target :: out(:)
    integer(c_size_t), target :: n
    type(c_ptr) :: s
    integer :: attempt, stat
    allocate (shares(0))
    allocate (doc(max(1, len(document))), stat=stat)
    if (stat /= 0) then
      status = DIVLOAD_OUT_OF_MEMORY
      return
    end if
    call to_c_chars(document, doc)
    s = c_null_ptr
    if (present(summary)) s = c_loc(summary)
    ! A first guess, then the exact number of workers C reports.
    n = 8
    do attempt = 1, 2
      allocate (out(max(1_c_size_t, n)), stat=stat)
      if (stat /= 0) then
        status = DIVLOAD_OUT_OF_MEMORY
        return
      end if
      status = divload_plan_shares(c_loc(doc), len(document, kind=c_size_t), c_loc(out), &
          size(out, kind=c_size_t), c_loc(n), s)
      if (status == DIVLOAD_OK) then
        deallocate (shares)
        allocate (shares(n), stat=stat)
        if (stat /= 0) then
          allocate (shares(0))
          status = DIVLOAD_OUT_OF_MEMORY
          return
        end if
        shares = out(1:n)
        return
      end if
      if (status /= DIVLOAD_BUFFER_TOO_SMALL .or. n <= size(out, kind=c_size_t)) return
      deallocate (out)
    end do
  end function plan_shares

  ! Plans a scatter sent in installments (several chunks per worker, so that workers
  ! compute while the root still sends) and returns the chunks in send order in `chunks`,
  ! allocated to their number: %rank (from 0), %count, %displacement (from 0; a rank's
  ! chunks are consecutive parts of its block), %send_start, %send_end, %compute_start,
  ! %compute_end. `options` (optional): %root_mode (DIVLOAD_ROOT_MODE_*, DISTRIBUTE_ONLY
  ! for a root that only sends), %installments (0 for as many as help), %deadline (0 for
  ! none). `max_items` (optional, one per worker): the most items a worker holds in one
  ! installment (-1, UINT64_MAX in C, for no cap).
  ! `available_at` (optional, one per worker): when it may start computing. `chunks` has
  ! no elements on failure. Statuses as divload_plan_installments.
  function plan_installments(workers, root, items, chunks, summary, options, max_items, available_at) &
      result(status)
    type(divload_worker), intent(in), target, contiguous :: workers(:)
    integer, intent(in) :: root
    integer(c_int64_t), intent(in) :: items
    type(divload_chunk), allocatable, intent(out) :: chunks(:)
    type(divload_plan_summary), intent(inout), optional, target :: summary
    type(divload_installment_options), intent(in), optional, target :: options
    integer(c_int64_t), intent(in), optional, target, contiguous :: max_items(:)
    real(c_double), intent(in), optional, target, contiguous :: available_at(:)
    integer(c_int32_t) :: status
    type(divload_worker), target :: no_workers(1)
    type(divload_chunk), allocatable, target :: out(:)
    integer(c_size_t), target :: n
    type(c_ptr) :: w, caps, release, o, s
    integer :: stat
    allocate (chunks(0))
    w = c_loc(no_workers)
    if (size(workers) > 0) w = c_loc(workers)
    caps = c_null_ptr
    release = c_null_ptr
    o = c_null_ptr
    s = c_null_ptr
    ! C reads one value per worker: a shorter list is refused here, not read past.
    if (present(max_items)) then
      if (size(max_items) /= size(workers)) then
        status = DIVLOAD_INVALID_INPUT
        return
      end if
      if (size(max_items) > 0) caps = c_loc(max_items)
    end if
    if (present(available_at)) then
      if (size(available_at) /= size(workers)) then
        status = DIVLOAD_INVALID_INPUT
        return
      end if
      if (size(available_at) > 0) release = c_loc(available_at)
    end if
    if (present(options)) o = c_loc(options)
    if (present(summary)) s = c_loc(summary)
    ! The most chunks any plan over these workers has: one call suffices.
    allocate (out(max(1_c_size_t, divload_installment_chunks_max(size(workers, kind=c_size_t)))), stat=stat)
    if (stat /= 0) then
      status = DIVLOAD_OUT_OF_MEMORY
      return
    end if
    n = 0
    status = divload_plan_installments(w, size(workers, kind=c_size_t), rank_arg(root), items, caps, release, &
        o, c_loc(out), size(out, kind=c_size_t), c_loc(n), s)
    if (status == DIVLOAD_OK) then
      deallocate (chunks)
      chunks = out(1:n)
    end if
  end function plan_installments

  ! Plans a document sent in installments (a scatter document with "installments",
  ! "deadline", "max_items", "available_at" or "root_mode": "distribute_only") and returns
  ! its chunks in send order, as plan_installments. Statuses as divload_plan_chunks.
  function plan_chunks(document, chunks, summary) result(status)
    character(len=*), intent(in) :: document
    type(divload_chunk), allocatable, intent(out) :: chunks(:)
    type(divload_plan_summary), intent(inout), optional, target :: summary
    integer(c_int32_t) :: status
    character(kind=c_char), allocatable, target :: doc(:)
    type(divload_chunk), allocatable, target :: out(:)
    integer(c_size_t), target :: n
    type(c_ptr) :: s
    integer :: attempt, stat
    allocate (chunks(0))
    allocate (doc(max(1, len(document))), stat=stat)
    if (stat /= 0) then
      status = DIVLOAD_OUT_OF_MEMORY
      return
    end if
    call to_c_chars(document, doc)
    s = c_null_ptr
    if (present(summary)) s = c_loc(summary)
    ! A first guess, then the exact number of chunks C reports.
    n = DIVLOAD_MAX_CHUNKS
    do attempt = 1, 2
      allocate (out(max(1_c_size_t, n)), stat=stat)
      if (stat /= 0) then
        status = DIVLOAD_OUT_OF_MEMORY
        return
      end if
      status = divload_plan_chunks(c_loc(doc), len(document, kind=c_size_t), c_loc(out), &
          size(out, kind=c_size_t), c_loc(n), s)
      if (status == DIVLOAD_OK) then
        deallocate (chunks)
        chunks = out(1:n)
        return
      end if
      if (status /= DIVLOAD_BUFFER_TOO_SMALL .or. n <= size(out, kind=c_size_t)) return
      deallocate (out)
    end do
  end function plan_chunks

  ! The method a plan_shares summary names ('closed_form', 'greedy', ...).
  function method_name(summary) result(text)
    type(divload_plan_summary), intent(in) :: summary
    character(len=:), allocatable :: text
    integer :: n
    n = 0
    do while (n < size(summary%method))
      if (summary%method(n + 1) == c_null_char) exit
      n = n + 1
    end do
    allocate (character(len=n) :: text)
    call copy_chars(summary%method(1:n), text)
  end function method_name

  ! The models a document can name in "model", as the JSON list
  ! [{"name", "title", "paper", "fields", "timeline"}, ...] of divload_models_json.
  function models_json(result) result(status)
    character(len=:), allocatable, intent(out) :: result
    integer(c_int32_t) :: status
    character(kind=c_char), target :: no_doc(1)
    no_doc = c_null_char
    status = document_call(.false., no_doc, 0_c_size_t, RESULT_GUESS, result)
  end function models_json

  ! divload_plan_json (planning) or divload_models_json into a buffer of `guess` bytes,
  ! and once more with the exact size when C answers DIVLOAD_BUFFER_TOO_SMALL.
  function document_call(planning, doc, doc_len, guess, result) result(status)
    logical, intent(in) :: planning
    character(kind=c_char), intent(in), target :: doc(:)
    integer(c_size_t), intent(in) :: doc_len, guess
    character(len=:), allocatable, intent(out) :: result
    integer(c_int32_t) :: status
    character(kind=c_char), allocatable, target :: out(:)
    integer(c_size_t), target :: out_n
    integer(c_size_t) :: size_
    integer :: attempt, stat
    result = ''
    size_ = guess
    do attempt = 1, 2
      allocate (out(size_), stat=stat)
      if (stat /= 0) then
        status = DIVLOAD_OUT_OF_MEMORY
        return
      end if
      out_n = 0
      if (planning) then
        status = divload_plan_json(c_loc(doc), doc_len, c_loc(out), size_, c_loc(out_n))
      else
        status = divload_models_json(c_loc(out), size_, c_loc(out_n))
      end if
      if (status == DIVLOAD_OK) then
        deallocate (result)
        allocate (character(len=out_n) :: result)
        call copy_chars(out(1:out_n), result)
        return
      end if
      ! On DIVLOAD_BUFFER_TOO_SMALL out_n is the size needed, NUL included. A second
      ! failure of the same kind is returned as it is: the answer does not change.
      if (status /= DIVLOAD_BUFFER_TOO_SMALL .or. out_n <= size_) return
      size_ = out_n
      deallocate (out)
    end do
  end function document_call

  ! A NUL-terminated C string as a Fortran string ('' for a null pointer).
  function from_c_string(p) result(text)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: text
    character(kind=c_char), pointer :: chars(:)
    integer(c_size_t) :: n
    if (.not. c_associated(p)) then
      text = ''
      return
    end if
    n = strlen(p)
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: text)
    call copy_chars(chars, text)
  end function from_c_string

  subroutine copy_chars(chars, text)
    character(kind=c_char), intent(in) :: chars(:)
    character(len=*), intent(out) :: text
    integer :: i
    do i = 1, min(len(text), size(chars))
      text(i:i) = chars(i)
    end do
  end subroutine copy_chars

  ! The document's bytes as a C char array (no NUL: C takes the length).
  subroutine to_c_chars(text, chars)
    character(len=*), intent(in) :: text
    character(kind=c_char), intent(out) :: chars(:)
    integer :: i
    chars = c_null_char
    do i = 1, min(len(text), size(chars))
      chars(i) = text(i:i)
    end do
  end subroutine to_c_chars

  ! A rank as C's size_t: a negative rank wraps to a huge one, which C rejects as a root
  ! out of range with its own message.
  function rank_arg(root) result(r)
    integer, intent(in) :: root
    integer(c_size_t) :: r
    r = int(root, c_size_t)
  end function rank_arg

  function options_arg(options) result(p)
    type(divload_options), intent(in), optional, target :: options
    type(c_ptr) :: p
    p = c_null_ptr
    if (present(options)) p = c_loc(options)
  end function options_arg

  function summary_arg(summary) result(p)
    type(divload_summary), intent(inout), optional, target :: summary
    type(c_ptr) :: p
    p = c_null_ptr
    if (present(summary)) p = c_loc(summary)
  end function summary_arg

end module divload
