! Worksharing from Fortran: do with every schedule (static with and without
! chunk, dynamic, guided, auto, runtime with omp_set_schedule), negative
! strides and collapse(3), each iteration run exactly once; loops of no
! iterations; do nowait then
! a barrier; sections; single and single nowait; master and masked;
! critical, named and unnamed; barrier; flush; an 8-byte loop variable.
program f_loops
  use omp_lib
  use fcorpus
  implicit none
  integer, parameter :: n = 1237
  integer :: t, i, j, k, s, runs(n), cube(5, 6, 7), count_single, count_master, count_sections
  integer :: crit_a, crit_b, inside, flag, got, ten
  integer(8) :: i8, big_sum

  call corpus_begin('f_loops')
  flag = 0
  t = corpus_threads()

  do s = 1, 7
    runs = 0
    select case (s)
    case (1)
      !$omp parallel do schedule(static)
      do i = 1, n
        runs(i) = runs(i) + 1
      end do
    case (2)
      !$omp parallel do schedule(static, 5)
      do i = n, 1, -1
        runs(i) = runs(i) + 1
      end do
    case (3)
      !$omp parallel do schedule(dynamic)
      do i = 1, n, 3
        do j = i, min(i + 2, n)
          runs(j) = runs(j) + 1
        end do
      end do
    case (4)
      !$omp parallel do schedule(guided, 4)
      do i = 1, n
        runs(i) = runs(i) + 1
      end do
    case (5)
      !$omp parallel do schedule(auto)
      do i = 1, n
        runs(i) = runs(i) + 1
      end do
    case (6)
      call omp_set_schedule(omp_sched_dynamic, 9)
      !$omp parallel do schedule(runtime)
      do i = 1, n
        runs(i) = runs(i) + 1
      end do
    case (7)
      call omp_set_schedule(omp_sched_guided, 2)
      !$omp parallel do schedule(runtime)
      do i = n, 1, -2
        do j = max(i - 1, 1), i
          runs(j) = runs(j) + 1
        end do
      end do
    end select
    do i = 1, n
      if (runs(i) /= 1) call fail('schedule case ' // str(int(s, 8)) // ': iteration ' // str(int(i, 8)) // &
                                  ' ran ' // str(int(runs(i), 8)) // ' times')
    end do
  end do

  ! Loops of no iterations, strided and not, static and dynamic (flang 19
  ! passes a zero-trip loop to its runtime as 0 .. 2**32 - 1, unsigned).
  ten = t / t * 10 ! (not a constant: the trip count is the runtime's to find)
  do s = 1, 6
    ! (an 8-byte count: 2**32 iterations would wrap a 4-byte one to 0)
    big_sum = 0
    k = 2**s
    !$omp parallel do reduction(+:big_sum)
    do i = k, ten, k
      big_sum = big_sum + 1
    end do
    call check_eq(big_sum, int(merge(ten / k, 0, k <= ten), 8), 'a strided static loop, step ' // str(int(k, 8)))
    big_sum = 0
    !$omp parallel do schedule(dynamic, 2) reduction(+:big_sum)
    do i = k, ten, k
      big_sum = big_sum + 1
    end do
    call check_eq(big_sum, int(merge(ten / k, 0, k <= ten), 8), 'a strided dynamic loop, step ' // &
                  str(int(k, 8)))
  end do
  big_sum = 0
  !$omp parallel do reduction(+:big_sum)
  do i = ten, 1
    big_sum = big_sum + 1
  end do
  call check_eq(big_sum, 0_8, 'a loop from ten to 1')

  cube = 0
  !$omp parallel do collapse(3) schedule(dynamic, 3)
  do k = 1, 7
    do j = 1, 6
      do i = 1, 5
        cube(i, j, k) = cube(i, j, k) + i + 10 * j + 100 * k
      end do
    end do
  end do
  call check_eq(sum(cube), 6 * 7 * 15 + 5 * 7 * 210 + 5 * 6 * 2800, 'collapse(3)')

  big_sum = 0
  !$omp parallel do reduction(+:big_sum)
  do i8 = 3000000000_8, 3000001000_8
    big_sum = big_sum + (i8 - 3000000000_8)
  end do
  call check_eq(big_sum, 500500_8, 'a loop over 8-byte indices')

  count_single = 0
  count_master = 0
  count_sections = 0
  crit_a = 0
  crit_b = 0
  inside = 0
  runs = 0
  !$omp parallel private(i, got)
  !$omp do schedule(static, 7)
  do i = 1, n
    runs(i) = runs(i) + 1
  end do
  !$omp end do nowait
  !$omp barrier
  !$omp single
  if (any(runs /= 1)) call fail('do nowait, then a barrier')
  count_single = count_single + 1
  !$omp end single
  !$omp single
  count_single = count_single + 1
  !$omp end single nowait
  !$omp master
  count_master = count_master + 1
  !$omp end master
  !$omp masked filter(0)
  count_master = count_master + 1
  !$omp end masked
  !$omp sections
  !$omp section
  !$omp atomic
  count_sections = count_sections + 1
  !$omp section
  !$omp atomic
  count_sections = count_sections + 10
  !$omp section
  !$omp atomic
  count_sections = count_sections + 100
  !$omp end sections
  do i = 1, 100
    !$omp critical
    if (inside /= 0) call fail('two threads in the unnamed critical')
    inside = 1
    crit_a = crit_a + 1
    inside = 0
    !$omp end critical
    !$omp critical (other)
    crit_b = crit_b + 2
    !$omp end critical (other)
  end do
  ! flush: member 0 publishes, the others wait for it
  if (omp_get_thread_num() == 0) then
    !$omp atomic write
    flag = 1
    !$omp flush
  end if
  do
    !$omp flush
    !$omp atomic read
    got = flag
    if (got == 1) exit
  end do
  !$omp end parallel
  call check_eq(count_single, 2, 'single and single nowait, once each')
  call check_eq(count_master, 2, 'master and masked filter(0), once each')
  call check_eq(count_sections, 111, 'sections, each once')
  call check_eq(crit_a, 100 * t, 'unnamed critical')
  call check_eq(crit_b, 200 * t, 'named critical')
  call summary('threads ' // str(int(t, 8)) // ' crit ' // str(int(crit_a + crit_b, 8)) // ' ok')
end program f_loops
