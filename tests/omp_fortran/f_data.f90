! Data-sharing as gfortran lowers it: copyprivate of arrays, allocatables
! and derived types (GOMP_single_copy_start/end, which gfortran uses for
! everything but scalars); lastprivate on do, sections and a simd loop,
! with schedules where the last iteration's owner varies; threadprivate
! common blocks and module variables, kept from region to region and
! copied in (copyin); firstprivate arrays and allocatables; private
! allocatables allocated per member.
module f_data_state
  implicit none
  integer :: counter_tp
  real(8) :: table_tp(5)
  !$omp threadprivate(counter_tp, table_tp)
end module

program f_data
  use omp_lib
  use fcorpus
  use f_data_state
  implicit none
  integer, parameter :: n = 523
  integer :: t, i, j, last_i, last_j, from_sections, round
  integer :: block_cp(4, 3)
  real(8), allocatable :: alloc_cp(:)
  real(8) :: first(6), got_first
  integer, allocatable :: first_alloc(:)
  type :: pair
    integer :: key
    real(8) :: value(2)
  end type
  type(pair) :: pair_cp
  integer :: common_count
  real(8) :: common_values(3)
  common /tp_block/ common_values, common_count
  !$omp threadprivate(/tp_block/)

  call corpus_begin('f_data')
  t = corpus_threads()

  ! ---- copyprivate: arrays, an allocatable, a derived type ----
  do round = 1, 30
    !$omp parallel private(block_cp, alloc_cp, pair_cp)
    !$omp single
    block_cp = reshape([(i * round, i = 1, 12)], [4, 3])
    allocate (alloc_cp(round))
    alloc_cp = real(round, 8)
    pair_cp = pair(round, [1d0 * round, -1d0 * round])
    !$omp end single copyprivate(block_cp, alloc_cp, pair_cp)
    if (any(block_cp /= reshape([(i * round, i = 1, 12)], [4, 3]))) call fail('copyprivate of an array')
    if (.not. allocated(alloc_cp)) call fail('copyprivate of an allocatable: not allocated')
    if (size(alloc_cp) /= round .or. any(alloc_cp /= real(round, 8))) call fail('copyprivate of an allocatable')
    if (pair_cp%key /= round .or. pair_cp%value(2) /= -1d0 * round) call fail('copyprivate of a derived type')
    !$omp end parallel
  end do

  ! ---- lastprivate ----
  do round = 1, 10
    last_i = -1
    !$omp parallel do lastprivate(last_i) schedule(dynamic, 3)
    do i = 1, n + round
      last_i = i * 2
    end do
    call check_eq(last_i, 2 * (n + round), 'lastprivate of a dynamic do')
    last_j = -1
    !$omp parallel do collapse(2) lastprivate(last_i, last_j) schedule(guided)
    do i = 1, 7
      do j = 1, round + 2
        last_i = i
        last_j = j
      end do
    end do
    call check_eq(last_i * 100 + last_j, 700 + round + 2, 'lastprivate of a collapsed do')
    !$omp parallel sections lastprivate(from_sections)
    !$omp section
    from_sections = 1
    !$omp section
    from_sections = 2
    !$omp section
    from_sections = 3 * round
    !$omp end parallel sections
    call check_eq(from_sections, 3 * round, 'lastprivate of sections')
    !$omp parallel do simd lastprivate(last_i)
    do i = 1, n
      last_i = i + round
    end do
    call check_eq(last_i, n + round, 'lastprivate of a do simd')
  end do

  ! ---- threadprivate: module variables and a common block ----
  counter_tp = 100
  table_tp = 1
  common_count = 7
  common_values = [1d0, 2d0, 3d0]
  !$omp parallel copyin(counter_tp, table_tp, /tp_block/)
  if (counter_tp /= 100 .or. any(table_tp /= 1d0)) call fail('copyin of threadprivate module variables')
  if (common_count /= 7 .or. common_values(3) /= 3d0) call fail('copyin of a threadprivate common block')
  counter_tp = omp_get_thread_num()
  table_tp = real(omp_get_thread_num(), 8)
  common_count = 10 * omp_get_thread_num()
  !$omp end parallel
  ! The next region (same team size, dynamic off) sees each member's own.
  !$omp parallel
  if (counter_tp /= omp_get_thread_num()) call fail('threadprivate module variable kept between regions')
  if (any(table_tp /= real(omp_get_thread_num(), 8))) call fail('threadprivate array kept between regions')
  if (common_count /= 10 * omp_get_thread_num()) call fail('threadprivate common block kept between regions')
  !$omp end parallel
  call check_eq(counter_tp, 0, 'the primary thread keeps its threadprivate copy')

  ! ---- firstprivate arrays and allocatables, private allocatables ----
  first = [(real(i, 8), i = 1, 6)]
  allocate (first_alloc(4))
  first_alloc = 9
  got_first = 0
  !$omp parallel firstprivate(first, first_alloc) reduction(+:got_first)
  got_first = got_first + sum(first) + real(sum(first_alloc), 8)
  first = -1
  first_alloc = -1
  !$omp end parallel
  call check_near(got_first, real(t, 8) * (21d0 + 36d0), 0d0, 'firstprivate array and allocatable')
  call check(all(first_alloc == 9) .and. first(6) == 6d0, 'firstprivate copies leave the original')
  deallocate (first_alloc)
  !$omp parallel private(alloc_cp)
  allocate (alloc_cp(omp_get_thread_num() + 1))
  alloc_cp = 1
  if (size(alloc_cp) /= omp_get_thread_num() + 1) call fail('a private allocatable per member')
  deallocate (alloc_cp)
  !$omp end parallel

  call summary('last ' // str(int(last_i, 8)) // ' sections ' // str(int(from_sections, 8)) // ' ok')
end program f_data
