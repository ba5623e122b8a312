! do ordered (the ordered construct inside a worksharing loop, in order of
! iterations, under static, dynamic and guided schedules with chunks) and
! doacross loops (ordered(n) with depend(sink:)/depend(source)) as
! gfortran lowers them: a 1-D recurrence and a 2-D wavefront, each checked
! against the serial result, with random delays so members run out of
! step.
program f_ordered
  use omp_lib
  use fcorpus
  implicit none
  integer, parameter :: n = 300, rows = 40, cols = 37
  integer :: t, i, j, next, sched
  integer :: order(n)
  real(8) :: x(0:n), grid(0:rows, 0:cols), want(0:rows, 0:cols)
  integer(8) :: seed

  call corpus_begin('f_ordered')
  t = corpus_threads()

  ! ---- do ordered under three schedules ----
  do sched = 1, 3
    next = 0
    order = 0
    select case (sched)
    case (1)
      !$omp parallel do ordered schedule(static, 3) private(seed)
      do i = 1, n
        seed = corpus_seed(i, 1)
        call corpus_delay(seed, 20)
        !$omp ordered
        next = next + 1
        order(next) = i
        !$omp end ordered
      end do
    case (2)
      !$omp parallel do ordered schedule(dynamic, 2) private(seed)
      do i = 1, n
        seed = corpus_seed(i, 2)
        call corpus_delay(seed, 20)
        !$omp ordered
        next = next + 1
        order(next) = i
        !$omp end ordered
      end do
    case (3)
      !$omp parallel do ordered schedule(guided) private(seed)
      do i = n, 1, -1
        seed = corpus_seed(i, 3)
        call corpus_delay(seed, 20)
        !$omp ordered
        next = next + 1
        order(next) = n + 1 - i
        !$omp end ordered
      end do
    end select
    do i = 1, n
      if (order(i) /= i) call fail('do ordered, schedule ' // str(int(sched, 8)) // ': position ' // &
                                   str(int(i, 8)) // ' holds ' // str(int(order(i), 8)))
    end do
  end do

  ! ---- doacross: a 1-D recurrence ----
  x(0) = 1
  !$omp parallel do ordered(1) schedule(static, 1)
  do i = 1, n
    !$omp ordered depend(sink: i - 1)
    x(i) = x(i - 1) * 0.5d0 + real(i, 8)
    !$omp ordered depend(source)
  end do
  call check_near(x(n), serial_recurrence(), 1d-12, 'doacross 1-D recurrence')

  ! ---- doacross: a 2-D wavefront ----
  grid = 0
  grid(0, :) = 1
  grid(:, 0) = 1
  !$omp parallel do ordered(2) private(j, seed)
  do i = 1, rows
    do j = 1, cols
      seed = corpus_seed(i, j)
      call corpus_delay(seed, 10)
      !$omp ordered depend(sink: i - 1, j) depend(sink: i, j - 1)
      grid(i, j) = mod(grid(i - 1, j) + grid(i, j - 1), 1000003d0)
      !$omp ordered depend(source)
    end do
  end do
  want = 0
  want(0, :) = 1
  want(:, 0) = 1
  do i = 1, rows
    do j = 1, cols
      want(i, j) = mod(want(i - 1, j) + want(i, j - 1), 1000003d0)
    end do
  end do
  call check(all(grid == want), 'doacross 2-D wavefront')

  call summary('corner ' // str(nint(grid(rows, cols), 8)) // ' ok')

contains

  real(8) function serial_recurrence()
    integer :: k
    serial_recurrence = 1
    do k = 1, n
      serial_recurrence = serial_recurrence * 0.5d0 + real(k, 8)
    end do
  end function

end program f_ordered
