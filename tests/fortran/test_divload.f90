! Module divload from Fortran: plans whose invariants are checked (counts add up, blocks
! tile the items, the makespan within its bounds), plan_json for every model the library
! lists (and plan_shares for each), and bad input (NaN cost, no workers, malformed JSON, buffers too small, null
! pointers through the raw binding) answered with the documented status and message,
! the outputs left untouched. Exits with status 1 when a check fails.
program test_divload
  use, intrinsic :: iso_c_binding, only: c_int, c_int32_t, c_int64_t, c_double, c_size_t, &
      c_null_ptr, c_null_char, c_loc, c_char
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan, ieee_positive_inf
  use divload
  implicit none

  integer :: passed = 0, failed = 0
  type(divload_worker), allocatable :: workers(:)
  type(divload_summary) :: summary
  type(divload_options) :: options
  type(divload_assignment) :: assignments(4)
  integer(c_int) :: counts(4), displs(4), short(3), none(0)
  integer(c_int64_t) :: counts64(4), displs64(4)
  integer(c_int32_t) :: status
  character(len=:), allocatable :: text, result
  integer :: s, r

  ! --- versions and statuses -------------------------------------------------------------
  call check(library_version_matches(), 'the library is the version of the header divload_c was generated from')
  call check(DIVLOAD_VERSION_STRING == '0.1.0', 'DIVLOAD_VERSION_STRING is 0.1.0')
  do s = 0, DIVLOAD_STATUS_LAST
    text = status_message(int(s, c_int32_t))
    call check(len(text) > 0 .and. index(text, 'unknown') == 0, 'status ' // itoa(s) // ' has a message: ' // text)
  end do
  call check(index(status_message(DIVLOAD_STATUS_LAST + 1), 'unknown status') > 0, &
      'a number after the last status is "unknown status"')
  call check(index(status_message(-1_c_int32_t), 'unknown status') > 0, 'status -1 (2^32-1 in C) is unknown')
  call check(index(status_message(DIVLOAD_JSON), 'JSON') > 0, 'DIVLOAD_JSON''s message names JSON')

  ! --- a good plan ----------------------------------------------------------------------
  workers = platform()
  counts = -7
  displs = -7
  status = plan_counts(workers, 0, 1000_c_int64_t, counts, displs, summary)
  call check(status == DIVLOAD_OK, 'plan_counts: DIVLOAD_OK, got ' // itoa(status))
  call check(sum(counts) == 1000 .and. all(counts >= 0), 'plan_counts: counts >= 0 add up to 1000')
  call check(tiles(int(displs, c_int64_t), int(counts, c_int64_t), 1000_c_int64_t), &
      'plan_counts: the blocks tile 0 .. 999')
  call check(summary%items == 1000 .and. summary%root == 0, 'plan_counts: the summary has items and root')
  call check(summary%lower_bound <= summary%makespan .and. summary%makespan <= summary%bound, &
      'plan_counts: lower bound <= makespan <= bound')
  call check(summary%makespan < summary%uniform_makespan, 'plan_counts: better than the even split')

  counts64 = -7
  displs64 = -7
  status = plan_counts(workers, 0, 1000_c_int64_t, counts64, displs64)
  call check(status == DIVLOAD_OK .and. all(counts64 == counts) .and. all(displs64 == displs), &
      'plan_counts with 64-bit counts: the same plan, no summary asked for')

  status = plan(workers, 0, 1000_c_int64_t, assignments, summary)
  call check(status == DIVLOAD_OK, 'plan: DIVLOAD_OK')
  call check(all([(any(assignments(:)%rank == r), r = 0, 3)]), 'plan: every rank once')
  call check(all([(counts(assignments(r)%rank + 1) == assignments(r)%count, r = 1, 4)]), &
      'plan: the same counts as plan_counts')
  call check(all([(assignments(r + 1)%displacement == assignments(r)%displacement + assignments(r)%count, &
      r = 1, 3)]) .and. assignments(1)%displacement == 0, 'plan: blocks contiguous in send order')
  call check(assignments(4)%rank == 0, 'plan: the root is served last (after_send)')

  options = divload_options(DIVLOAD_ROOT_MODE_AFTER_SEND, DIVLOAD_ORDER_GIVEN, DIVLOAD_ROUNDING_PAPER)
  status = plan(workers, 0, 1000_c_int64_t, assignments, options=options)
  call check(status == DIVLOAD_OK .and. all(assignments(:)%rank == [1, 2, 3, 0]), &
      'plan with options: order given, the root last')

  ! The root's own link costs are never charged, so NaN there is accepted (divload.h).
  workers(1)%comm_per_item = ieee_value(1.0_c_double, ieee_quiet_nan)
  status = plan_counts(workers, 0, 1000_c_int64_t, counts, displs)
  call check(status == DIVLOAD_OK, 'the root''s comm_per_item may be NaN')

  ! --- bad input: the documented status, the outputs untouched --------------------------
  workers = platform()
  workers(3)%comp_per_item = ieee_value(1.0_c_double, ieee_quiet_nan)
  counts = -7
  displs = -7
  status = plan_counts(workers, 0, 1000_c_int64_t, counts, displs, summary)
  call check(status == DIVLOAD_INVALID_INPUT, 'NaN cost: DIVLOAD_INVALID_INPUT, got ' // itoa(status))
  text = last_error_message()
  call check(index(text, 'comp_per_item') > 0 .and. index(text, 'NaN') > 0, 'NaN cost: the message says where: ' // text)
  call check(all(counts == -7) .and. all(displs == -7), 'NaN cost: counts and displs untouched')

  workers = platform()
  workers(2)%comm_per_item = -1
  status = plan_counts(workers, 0, 1000_c_int64_t, counts, displs)
  call check(status == DIVLOAD_INVALID_INPUT, 'negative cost: DIVLOAD_INVALID_INPUT')
  workers(2)%comm_per_item = ieee_value(1.0_c_double, ieee_positive_inf)
  status = plan_counts(workers, 0, 1000_c_int64_t, counts, displs)
  call check(status == DIVLOAD_INVALID_INPUT, 'infinite cost: DIVLOAD_INVALID_INPUT')

  workers = platform()
  status = plan_counts(workers(1:0), 0, 1000_c_int64_t, counts, displs)
  call check(status == DIVLOAD_INVALID_INPUT, 'zero workers: DIVLOAD_INVALID_INPUT, got ' // itoa(status))
  call check(len(last_error_message()) > 0, 'zero workers: a message: ' // last_error_message())
  status = plan(workers(1:0), 0, 1000_c_int64_t, assignments)
  call check(status == DIVLOAD_INVALID_INPUT, 'zero workers (plan): DIVLOAD_INVALID_INPUT')
  status = plan_counts(workers, 0, 0_c_int64_t, counts, displs)
  call check(status == DIVLOAD_INVALID_INPUT, 'zero items: DIVLOAD_INVALID_INPUT')
  status = plan_counts(workers, 4, 1000_c_int64_t, counts, displs)
  call check(status == DIVLOAD_INVALID_INPUT, 'root 4 of 4 workers: DIVLOAD_INVALID_INPUT')
  status = plan_counts(workers, -1, 1000_c_int64_t, counts, displs)
  call check(status == DIVLOAD_INVALID_INPUT, 'root -1: DIVLOAD_INVALID_INPUT')
  status = plan_counts(workers, 0, -5_c_int64_t, counts, displs)
  call check(status == DIVLOAD_OVERFLOW, 'negative items (read as unsigned by C): DIVLOAD_OVERFLOW')
  status = plan_counts(workers, 0, 3000000000_c_int64_t, counts, displs)
  call check(status == DIVLOAD_OVERFLOW, 'items beyond huge(int): DIVLOAD_OVERFLOW')
  status = plan_counts(workers, 0, 3000000000_c_int64_t, counts64, displs64)
  call check(status == DIVLOAD_OK .and. sum(counts64) == 3000000000_c_int64_t, &
      'items beyond huge(int) with 64-bit counts: planned')
  options = divload_options(0, 0, 9)
  status = plan_counts(workers, 0, 1000_c_int64_t, counts, displs, options=options)
  call check(status == DIVLOAD_INVALID_INPUT .and. index(last_error_message(), 'rounding') > 0, &
      'rounding 9: DIVLOAD_INVALID_INPUT naming options.rounding')

  counts = -7
  short = -7
  status = plan_counts(workers, 0, 1000_c_int64_t, short, displs)
  call check(status == DIVLOAD_BUFFER_TOO_SMALL, 'counts too small: DIVLOAD_BUFFER_TOO_SMALL, got ' // itoa(status))
  call check(all(short == -7) .and. all(displs == -7), 'counts too small: nothing written')
  status = plan_counts(workers, 0, 1000_c_int64_t, counts, short)
  call check(status == DIVLOAD_BUFFER_TOO_SMALL, 'displs too small: DIVLOAD_BUFFER_TOO_SMALL')
  status = plan_counts(workers, 0, 1000_c_int64_t, none, displs)
  call check(status == DIVLOAD_BUFFER_TOO_SMALL, 'no counts at all: DIVLOAD_BUFFER_TOO_SMALL')
  status = plan(workers, 0, 1000_c_int64_t, assignments(1:2))
  call check(status == DIVLOAD_BUFFER_TOO_SMALL, 'plan into 2 of 4 assignments: DIVLOAD_BUFFER_TOO_SMALL')

  ! --- documents ------------------------------------------------------------------------
  call every_model()

  status = plan_json('{"workers": [', result)
  call check(status == DIVLOAD_JSON .and. result == '', 'truncated JSON: DIVLOAD_JSON, empty result')
  call check(index(last_error_message(), 'byte') > 0, 'truncated JSON: the message gives the byte: ' // &
      last_error_message())
  status = plan_json('', result)
  call check(status == DIVLOAD_JSON, 'empty document: DIVLOAD_JSON')
  status = plan_json('{"items": 10, "workers": []}' // c_null_char, result)
  call check(status == DIVLOAD_JSON, 'a NUL after the document is a byte of it: DIVLOAD_JSON')
  status = plan_json('{"model": "torus", "items": 10}', result)
  call check(status == DIVLOAD_JSON .and. index(last_error_message(), 'multicluster') > 0, &
      'unknown model: DIVLOAD_JSON listing the models')
  status = plan_json('{"items": 10, "workers": [{"name": "a", "comm_per_item": 0, "comp_per_item": "x"}]}', result)
  call check(status == DIVLOAD_JSON .and. index(last_error_message(), 'comp_per_item') > 0, &
      'a string for a number: DIVLOAD_JSON naming the key')

  ! A result far larger than the first guess: the wrapper asks again with the exact size.
  status = plan_json('{"items": 100000, "root": "r", "workers": [{"name": "r", "comm_per_item": 0, ' // &
      '"comp_per_item": 1e-3}, {"name": "w", "count": 3000, "comm_per_item": 1e-6, "comp_per_item": 1e-3}]}', result)
  call check(status == DIVLOAD_OK .and. len(result) > 100000 .and. ends_with(result, '}') .and. &
      index(result, c_null_char) == 0, 'a 3000-worker result (' // itoa(len(result)) // ' bytes) in full, ' // &
      'status ' // itoa(status) // ' ' // last_error_message())

  call raw_binding()
  call installments()

  ! The main program's variables live to the end; freed here so that a leak checker
  ! reports only what the module loses.
  deallocate (workers, text, result)

  write (*, '(a, i0, a, i0, a)') 'test_divload: ', passed, ' checks passed, ', failed, ' failed'
  if (failed > 0) error stop 1
  write (*, '(a)') 'test_divload: all checks passed'

contains

  function platform() result(w)
    type(divload_worker), allocatable :: w(:)
    w = [divload_worker(0, 0, 0, 1e-3_c_double), divload_worker(0, 1e-5_c_double, 0, 2e-3_c_double), &
        divload_worker(1e-3_c_double, 2e-5_c_double, 0, 1e-3_c_double), &
        divload_worker(0, 4e-5_c_double, 1e-4_c_double, 4e-3_c_double)]
  end function platform

  ! plan_json on a document of each model divload lists; a model without a document here
  ! fails, so a new model cannot go untested from Fortran.
  subroutine every_model()
    character(len=:), allocatable :: models, name, doc
    type(divload_share), allocatable :: shares(:)
    type(divload_plan_summary) :: plan_summary
    integer :: at, q, n
    status = models_json(models)
    call check(status == DIVLOAD_OK .and. index(models, '[') == 1 .and. ends_with(models, ']'), &
        'models_json: a JSON list')
    n = 0
    at = index(models, '"name":"')
    do while (at > 0)
      models = models(at + 8:)
      q = index(models, '"')
      name = models(1:q - 1)
      n = n + 1
      select case (name)
      case ('scatter')
        doc = '{"version": 1, "model": "scatter", "items": 1000, "root": "a", "workers": [' // &
            '{"name": "a", "comm_per_item": 0, "comp_per_item": 0.002},' // &
            '{"name": "b", "count": 3, "comm_per_item": 1e-5, "comp_per_item": 0.001}]}'
      case ('returns')
        doc = '{"version": 1, "model": "returns", "items": 1000, "schedule": "best", "workers": [' // &
            '{"name": "p1", "comm_per_item": 7, "comp_per_item": 6, "return_per_item": 7},' // &
            '{"name": "p2", "comm_per_item": 8, "comp_per_item": 5, "return_per_item": 8},' // &
            '{"name": "p3", "comm_per_item": 12, "comp_per_item": 5, "return_per_item": 12}]}'
      case ('multicluster')
        doc = '{"version": 1, "model": "multicluster", "clusters": [{"name": "a", "processors": 8},' // &
            '{"name": "b", "processors": 8}], "links": {' // &
            '"fast": {"latency": 45e-6, "overhead": 5e-6, "gap": 0.05e-6},' // &
            '"slow": {"latency": 400e-6, "overhead": 10e-6, "gap": 0.5e-6}},' // &
            '"application": {"pattern": "ring", "lattice": 8192, "flip_time": 0.55e-6, "steps": 20}}'
      case ('partition')
        doc = '{"version": 1, "model": "partition", "items": 1000000, "workers": [' // &
            '{"name": "old", "comp_power": {"coeff": 2e-7, "exponent": 1.1}},' // &
            '{"name": "mid", "count": 2, "comp_per_item": 1.5e-6},' // &
            '{"name": "new", "comp_table": [[10000, 0.009], [100000, 0.1], [1000000, 1.15]]}]}'
      case ('ring')
        doc = '{"version": 1, "model": "ring", "work": 600, "boundary": 20, "processors": [' // &
            '{"name": "a", "cycle_time": 0.001}, {"name": "b", "cycle_time": 0.002}, {"name": "c", "cycle_time": 0.004}],' // &
            '"cost_matrix": [[0, 1e-4, 2e-4], [1e-4, 0, 2e-4], [2e-4, 2e-4, 0]]}'
      case default
        call check(.false., 'model ' // name // ' has no document in tests/fortran/test_divload.f90: add one')
        doc = ''
      end select
      if (len(doc) > 0) then
        status = plan_json(doc, result)
        call check(status == DIVLOAD_OK, 'plan_json, model ' // name // ': DIVLOAD_OK, got ' // itoa(status) // &
            ' ' // last_error_message())
        call check(index(result, '"model":"' // name // '"') > 0 .and. index(result, '"plan":[') > 0 .and. &
            ends_with(result, '}'), 'plan_json, model ' // name // ': a result with its plan')
        status = plan_shares(doc, shares, plan_summary)
        call check(status == DIVLOAD_OK .and. size(shares) == plan_summary%workers, &
            'plan_shares, model ' // name // ': DIVLOAD_OK, one share per worker')
        call check(sum(shares(:)%count) == plan_summary%items .and. all(shares(:)%count >= 0) .and. &
            count(shares(:)%position >= 0) == plan_summary%participating, &
            'plan_shares, model ' // name // ': counts add up, positions of the workers placed')
        call check(index(result, '"method":"' // method_name(plan_summary) // '"') > 0, &
            'plan_shares, model ' // name // ': the method of the result document, ' // method_name(plan_summary))
      end if
      at = index(models, '"name":"')
    end do
    call check(n >= 4, 'models_json lists at least the four models, got ' // itoa(n))
  end subroutine every_model

  ! The generated bind(c) interfaces called directly: null pointers and lengths reach the
  ! C checks and come back as statuses.
  ! plan_installments and plan_chunks: startup costs that make several installments pay
  ! off; counts add up, each rank's chunks consecutive in its block, caps kept, a late
  ! rank computing no earlier than it may; the document gives the same chunks; bad
  ! options and lists of the wrong length refused.
  subroutine installments()
    type(divload_worker) :: w(4)
    type(divload_chunk), allocatable :: chunks(:), again(:)
    type(divload_plan_summary) :: s
    type(divload_installment_options) :: o
    integer(c_int64_t) :: caps(4), next(0:3)
    real(c_double) :: release(4)
    character(len=:), allocatable :: doc
    integer :: k, r
    logical :: consecutive
    w(1) = divload_worker(0, 0, 0, 5e-3_c_double)
    w(2) = divload_worker(2e-3_c_double, 2e-4_c_double, 1e-3_c_double, 1e-3_c_double)
    w(3) = w(2)
    w(4) = divload_worker(4e-3_c_double, 3e-4_c_double, 1e-3_c_double, 2e-3_c_double)
    status = plan_installments(w, 0, 5000_c_int64_t, chunks, s)
    call check(status == DIVLOAD_OK .and. size(chunks) > size(w), 'plan_installments: several installments, got ' // &
        itoa(size(chunks)) // ' chunks ' // last_error_message())
    call check(sum(chunks(:)%count) == 5000 .and. s%items == 5000 .and. s%lower_bound <= s%makespan, &
        'plan_installments: counts add up to the items, the bound below the makespan')
    next = -1
    consecutive = .true.
    do k = 1, size(chunks)
      r = int(chunks(k)%rank)
      if (next(r) >= 0 .and. chunks(k)%displacement /= next(r)) consecutive = .false.
      next(r) = chunks(k)%displacement + chunks(k)%count
    end do
    call check(consecutive, 'plan_installments: each rank''s chunks are consecutive parts of its block')
    doc = '{"model":"scatter","items":5000,"root":"a","installments":"auto","workers":[' // &
        '{"name":"a","comm_per_item":0,"comp_per_item":5e-3},' // &
        '{"name":"b","count":2,"comm_latency":2e-3,"comm_per_item":2e-4,"comp_latency":1e-3,"comp_per_item":1e-3},' // &
        '{"name":"c","comm_latency":4e-3,"comm_per_item":3e-4,"comp_latency":1e-3,"comp_per_item":2e-3}]}'
    status = plan_chunks(doc, again)
    call check(status == DIVLOAD_OK .and. size(again) == size(chunks), 'plan_chunks: the same number of chunks')
    if (status == DIVLOAD_OK .and. size(again) == size(chunks)) then
      call check(all(again(:)%count == chunks(:)%count) .and. all(again(:)%rank == chunks(:)%rank) .and. &
          all(again(:)%displacement == chunks(:)%displacement), 'plan_chunks: the document plans the same chunks')
    end if
    o = divload_installment_options(DIVLOAD_ROOT_MODE_DISTRIBUTE_ONLY, 4, 0)
    caps = [-1_c_int64_t, 300_c_int64_t, 300_c_int64_t, 200_c_int64_t]
    release = [0, 0, 0, 1]
    status = plan_installments(w, 0, 3000_c_int64_t, chunks, s, o, caps, release)
    call check(status == DIVLOAD_OK .and. sum(chunks(:)%count) == 3000, 'plan_installments with caps: ' // &
        'DIVLOAD_OK, counts add up ' // last_error_message())
    call check(all(chunks(:)%rank /= 0), 'plan_installments: a root that only distributes computes nothing')
    call check(all(chunks(:)%rank == 0 .or. chunks(:)%count <= caps(chunks(:)%rank + 1)), &
        'plan_installments: every chunk within its rank''s cap')
    call check(all(chunks(:)%rank /= 3 .or. chunks(:)%compute_start >= 1), &
        'plan_installments: the late rank computes no earlier than it may')
    o = divload_installment_options(DIVLOAD_ROOT_MODE_AFTER_SEND, 65, 0)
    status = plan_installments(w, 0, 3000_c_int64_t, chunks, s, o)
    call check(status == DIVLOAD_INVALID_INPUT .and. size(chunks) == 0 .and. &
        index(last_error_message(), 'options.installments') > 0, 'plan_installments: 65 installments refused, by name')
    status = plan_installments(w, 0, 3000_c_int64_t, chunks, max_items=caps(1:2))
    call check(status == DIVLOAD_INVALID_INPUT, 'plan_installments: max_items not one per worker refused')
    status = plan_chunks('{"model":"scatter","items":10,"root":"a","workers":[{"name":"a","comm_per_item":0,' // &
        '"comp_per_item":1},{"name":"b","comm_per_item":1,"comp_per_item":1}]}', chunks)
    call check(status == DIVLOAD_INVALID_INPUT .and. index(last_error_message(), 'divload_plan_shares') > 0, &
        'plan_chunks: a one-message plan is refused with the call to use')
  end subroutine installments

  subroutine raw_binding()
    type(divload_worker), target :: w(4)
    integer(c_int), target :: c(4), d(4)
    character(kind=c_char), target :: doc(2), out(64)
    integer(c_size_t), target :: n
    w = platform()
    status = divload_plan_counts(c_null_ptr, 4_c_size_t, 0_c_size_t, 10_c_int64_t, c_null_ptr, &
        c_loc(c), 4_c_size_t, c_loc(d), 4_c_size_t, c_null_ptr)
    call check(status == DIVLOAD_NULL_PARAMETER, 'raw: null workers: DIVLOAD_NULL_PARAMETER')
    status = divload_plan_counts(c_loc(w), 4_c_size_t, 0_c_size_t, 10_c_int64_t, c_null_ptr, &
        c_loc(c), 4_c_size_t, c_null_ptr, 4_c_size_t, c_null_ptr)
    call check(status == DIVLOAD_NULL_PARAMETER, 'raw: null displs: DIVLOAD_NULL_PARAMETER')
    status = divload_plan_counts(c_loc(w), 4_c_size_t, 0_c_size_t, 10_c_int64_t, c_null_ptr, &
        c_loc(c), 4_c_size_t, c_loc(d), 4_c_size_t, c_null_ptr)
    call check(status == DIVLOAD_OK .and. sum(c) == 10, 'raw: divload_plan_counts plans 10 items')
    doc = ['{', '}']
    status = divload_plan_json(c_loc(doc), 2_c_size_t, c_loc(out), 64_c_size_t, c_null_ptr)
    call check(status == DIVLOAD_NULL_PARAMETER, 'raw: null out_n: DIVLOAD_NULL_PARAMETER')
    n = 0
    status = divload_models_json(c_loc(out), 4_c_size_t, c_loc(n))
    call check(status == DIVLOAD_BUFFER_TOO_SMALL .and. n > 4, 'raw: models_json into 4 bytes: ' // &
        'DIVLOAD_BUFFER_TOO_SMALL with the size needed (' // itoa(int(n)) // ')')
    call check(divload_last_error_message(c_null_ptr, 0_c_size_t) > 0, &
        'raw: divload_last_error_message(NULL, 0) gives the length')
    call check(divload_library_version() == DIVLOAD_VERSION_NUMBER, 'raw: divload_version_number')
  end subroutine raw_binding

  logical function tiles(displs, counts, n)
    integer(c_int64_t), intent(in) :: displs(:), counts(:), n
    integer(c_int64_t) :: next
    integer :: j, k, r
    next = 0
    do k = 1, size(counts)
      ! The block that starts where the previous one ended, empty blocks aside.
      j = 0
      do r = 1, size(counts)
        if (counts(r) > 0 .and. displs(r) == next) j = r
      end do
      if (j == 0) exit
      next = next + counts(j)
    end do
    tiles = next == n .and. sum(counts) == n .and. all(counts >= 0)
  end function tiles

  ! Fortran's .and. may evaluate both sides, so a substring of an empty string cannot
  ! stand in a condition beside a length test.
  logical function ends_with(text, last)
    character(len=*), intent(in) :: text, last
    ends_with = .false.
    if (len(text) >= len(last)) ends_with = text(len(text) - len(last) + 1:) == last
  end function ends_with

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) then
      passed = passed + 1
    else
      failed = failed + 1
      write (*, '(2a)') 'FAILED: ', what
    end if
  end subroutine check

  function itoa(i) result(s)
    integer, intent(in) :: i
    character(len=:), allocatable :: s
    character(len=16) :: buf
    write (buf, '(i0)') i
    s = trim(buf)
  end function itoa
end program test_divload
