! cg: a Fortran kernel of the kind fork/join runtimes are judged by, shipped
! so that `muster compare` has a Fortran program to run on any machine.
! Implicit time steps of the 2-D heat equation on an n x n grid with a
! heated spot, each step a
! conjugate-gradient solve (matrix-free, the 5-point stencil) of a fixed
! number of iterations, written as Fortran solvers are: every step of an
! iteration its own `!$omp parallel do` -- the stencil product, two dot
! products (reductions), three vector updates -- so each iteration is six
! short parallel regions, thousands of them in a run.
!
!   cg [--n N] [--steps N] [--iterations N]
!
! The work does not depend on the runtime (no tolerance decides when to
! stop).  Prints the answer -- the steps, the last residual's norm and a
! checksum of the field, to 6 significant digits (the sums' order, which
! the team size changes, moves only later digits) -- and the time.
program cg
  use omp_lib
  implicit none
  integer :: n, steps, iterations, step, it
  real(8), allocatable :: u(:, :), x(:, :), r(:, :), p(:, :), q(:, :)
  real(8) :: rho, rho_old, alpha, beta, pq, started

  call read_options(n, steps, iterations)
  allocate (u(n, n), x(0:n + 1, 0:n + 1), r(0:n + 1, 0:n + 1), p(0:n + 1, 0:n + 1), q(n, n))
  call initial_field(n, u)
  x = 0
  rho = 0
  started = omp_get_wtime()
  do step = 1, steps
    ! Solve (I + dt A) x = u from x = u; then u = x.
    call start_solve(n, u, x, r, p, rho)
    do it = 1, iterations
      call operator(n, p, q)
      pq = dot(n, p(1:n, 1:n), q)
      alpha = rho / pq
      call update_x_r(n, alpha, x, r, p, q)
      rho_old = rho
      rho = dot(n, r(1:n, 1:n), r(1:n, 1:n))
      beta = rho / rho_old
      call update_p(n, beta, r, p)
    end do
    call copy_back(n, x, u)
    u(n / 2, n / 3) = u(n / 2, n / 3) + 10d0 ! the hot spot keeps heating
  end do
  write (*, '(a,i0,a,i0,a,i0,a,es12.5,a,es12.5)') 'cg: n ', n, ' steps ', steps, ' x ', iterations, &
    ' iterations, residual ', sqrt(rho), ' checksum ', checksum(n, u)
  write (*, '(a,f10.6,a,i0,a)') 'time ', omp_get_wtime() - started, ' s on ', omp_get_max_threads(), ' threads'

contains

  ! A smooth bump and a hot spot.
  subroutine initial_field(n, u)
    integer, intent(in) :: n
    real(8), intent(out) :: u(:, :)
    integer :: i, j
    !$omp parallel do
    do j = 1, n
      do i = 1, n
        u(i, j) = sin(3.14159265358979d0 * i / (n + 1)) * sin(3.14159265358979d0 * j / (n + 1))
      end do
    end do
    u(n / 2, n / 3) = u(n / 2, n / 3) + 10d0
  end subroutine

  ! x = u (the guess), r = p = u - (I + dt A) x, rho = r.r.
  subroutine start_solve(n, u, x, r, p, rho)
    integer, intent(in) :: n
    real(8), intent(in) :: u(:, :)
    real(8), intent(inout) :: x(0:, 0:), r(0:, 0:), p(0:, 0:)
    real(8), intent(out) :: rho
    real(8) :: ax(n, n)
    integer :: i, j
    !$omp parallel do
    do j = 1, n
      do i = 1, n
        x(i, j) = u(i, j)
      end do
    end do
    call operator(n, x, ax)
    r = 0
    p = 0
    !$omp parallel do
    do j = 1, n
      do i = 1, n
        r(i, j) = u(i, j) - ax(i, j)
        p(i, j) = r(i, j)
      end do
    end do
    rho = dot(n, r(1:n, 1:n), r(1:n, 1:n))
  end subroutine

  subroutine copy_back(n, x, u)
    integer, intent(in) :: n
    real(8), intent(in) :: x(0:, 0:)
    real(8), intent(out) :: u(:, :)
    integer :: i, j
    !$omp parallel do
    do j = 1, n
      do i = 1, n
        u(i, j) = x(i, j)
      end do
    end do
  end subroutine

  ! q = (I + dt A) p, A the 5-point Laplacian (grid spacing 1) with zero
  ! boundary values, dt = 50: stiff enough that 15 iterations leave a residual
  ! far above rounding, so the printed digits do not depend on the sums' order.
  subroutine operator(n, p, q)
    integer, intent(in) :: n
    real(8), intent(in) :: p(0:, 0:)
    real(8), intent(out) :: q(:, :)
    real(8), parameter :: dt = 50d0
    integer :: i, j
    !$omp parallel do
    do j = 1, n
      do i = 1, n
        q(i, j) = p(i, j) + dt * (4d0 * p(i, j) - p(i - 1, j) - p(i + 1, j) - p(i, j - 1) - p(i, j + 1))
      end do
    end do
  end subroutine

  real(8) function dot(n, a, b)
    integer, intent(in) :: n
    real(8), intent(in) :: a(:, :), b(:, :)
    integer :: i, j
    real(8) :: s
    s = 0
    !$omp parallel do reduction(+:s)
    do j = 1, n
      do i = 1, n
        s = s + a(i, j) * b(i, j)
      end do
    end do
    dot = s
  end function

  subroutine update_x_r(n, alpha, x, r, p, q)
    integer, intent(in) :: n
    real(8), intent(in) :: alpha, p(0:, 0:), q(:, :)
    real(8), intent(inout) :: x(0:, 0:), r(0:, 0:)
    integer :: i, j
    !$omp parallel do
    do j = 1, n
      do i = 1, n
        x(i, j) = x(i, j) + alpha * p(i, j)
      end do
    end do
    !$omp parallel do
    do j = 1, n
      do i = 1, n
        r(i, j) = r(i, j) - alpha * q(i, j)
      end do
    end do
  end subroutine

  subroutine update_p(n, beta, r, p)
    integer, intent(in) :: n
    real(8), intent(in) :: beta, r(0:, 0:)
    real(8), intent(inout) :: p(0:, 0:)
    integer :: i, j
    !$omp parallel do
    do j = 1, n
      do i = 1, n
        p(i, j) = r(i, j) + beta * p(i, j)
      end do
    end do
  end subroutine

  real(8) function checksum(n, x)
    integer, intent(in) :: n
    real(8), intent(in) :: x(:, :)
    integer :: i, j
    checksum = 0
    do j = 1, n
      do i = 1, n
        checksum = checksum + x(i, j) * mod(i + 3 * j, 7)
      end do
    end do
  end function

  ! --n, --steps and --iterations; --help; anything else is refused (a
  ! mistyped option that ran the default kernel would measure the wrong
  ! thing quietly).
  subroutine read_options(n, steps, iterations)
    integer, intent(out) :: n, steps, iterations
    character(len=64) :: word, value
    integer :: k, count, status
    n = 64
    steps = 100
    iterations = 15
    count = command_argument_count()
    k = 1
    do while (k <= count)
      call get_command_argument(k, word)
      if (word == '--help' .or. word == '-h') then
        write (*, '(a)') 'usage: cg [--n N (64)] [--steps N (100)] [--iterations N (15)]', '', &
          'Implicit time steps of the 2-D heat equation on an N x N grid, each a conjugate-gradient', &
          'solve of a fixed number of iterations; every step of an iteration its own parallel loop:', &
          'six short parallel regions per iteration.'
        stop
      end if
      if (word /= '--n' .and. word /= '--steps' .and. word /= '--iterations') then
        write (0, '(a)') 'cg: unknown word "' // trim(word) // '" (see --help)'
        call exit(2)
      end if
      call get_command_argument(k + 1, value)
      if (word == '--n') then
        read (value, *, iostat=status) n
        if (status /= 0 .or. n < 4 .or. n > 4000) call fall_back(word, value, '4 to 4000', 64, n)
      else if (word == '--steps') then
        read (value, *, iostat=status) steps
        if (status /= 0 .or. steps < 1 .or. steps > 10000000) call fall_back(word, value, '1 to 10000000', 100, steps)
      else
        read (value, *, iostat=status) iterations
        if (status /= 0 .or. iterations < 1 .or. iterations > 10000000) &
          call fall_back(word, value, '1 to 10000000', 15, iterations)
      end if
      k = k + 2
    end do
  end subroutine

  subroutine fall_back(word, value, range, default, setting)
    character(len=*), intent(in) :: word, value, range
    integer, intent(in) :: default
    integer, intent(out) :: setting
    character(len=16) :: shown
    write (shown, '(i0)') default
    write (0, '(a)') 'cg: ' // trim(word) // ' "' // trim(value) // '": a whole number from ' // range // &
      '; using ' // trim(shown)
    setting = default
  end subroutine

end program cg
