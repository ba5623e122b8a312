! atomic on every kind gfortran lowers differently: integer(1), (2), (4),
! (8) and real(4), (8) (compare-and-swap loops or fetch-and-op builtins),
! complex(4) and (8) and logical (GOMP_atomic_start/end); update with
! + - * / max min iand ior ieor .and. .or. .eqv. .neqv.; read, write,
! capture (both orders) and seq_cst.  Every member adds its share many
! times; the totals are exact.
program f_atomic
  use omp_lib
  use fcorpus
  implicit none
  integer, parameter :: iters = 2000
  integer :: t, i, me, before
  integer(1) :: c1
  integer(2) :: c2
  integer(4) :: c4
  integer :: bits
  integer(8) :: c8, top, captured_sum, after8
  real(4) :: f4
  real(8) :: f8, product8, low
  complex(4) :: z4
  complex(8) :: z8
  logical :: flag, every, toggle
  integer :: flags_seen

  call corpus_begin('f_atomic')
  t = corpus_threads()
  c1 = 0
  c2 = 0
  c4 = 0
  c8 = 0
  f4 = 0
  f8 = 0
  product8 = 1
  z4 = 0
  z8 = 0
  top = -1
  low = huge(1d0)
  bits = 0
  every = .true.
  toggle = .false.
  captured_sum = 0
  !$omp parallel private(i, me, before, after8) reduction(+:captured_sum)
  me = omp_get_thread_num()
  do i = 1, iters
    if (mod(i, 200) == 0) then
      !$omp atomic
      c1 = c1 + 1_1
    end if
    !$omp atomic update
    c2 = c2 + int(mod(i, 3), 2)
    !$omp atomic
    c4 = c4 - 2_4
    !$omp atomic seq_cst
    c8 = c8 + int(i, 8) * 1000000_8
    !$omp atomic
    f4 = f4 + 0.25
    !$omp atomic
    f8 = f8 + 0.5d0
    if (mod(i, 500) == 0) then
      !$omp atomic
      product8 = product8 * 2d0
    end if
    !$omp atomic
    z4 = z4 + (1.0, -1.0)
    !$omp atomic
    z8 = z8 + cmplx(0.5d0, 2d0, 8)
    !$omp atomic
    top = max(top, int(me * iters + i, 8))
    !$omp atomic
    low = min(low, real(i + me, 8))
    !$omp atomic
    bits = ior(bits, ishft(1, mod(i, 30)))
    !$omp atomic
    every = every .and. (i > 0)
    !$omp atomic
    toggle = toggle .neqv. .true.
    !$omp atomic capture
    before = c4
    c4 = c4 + 1_4
    !$omp end atomic
    !$omp atomic capture
    c8 = c8 - 1
    after8 = c8
    !$omp end atomic
    captured_sum = captured_sum + 1
    if (before > iters * t) call fail('atomic capture read a value never stored')
    if (after8 < 0) call fail('atomic capture (update, then read) read a value never stored')
  end do
  !$omp end parallel
  call check_eq(int(c1, 8), int(t * (iters / 200), 8), 'integer(1) atomic +')
  call check_eq(int(c2, 8), int(t * serial_mod3(), 8), 'integer(2) atomic +')
  call check_eq(c4, -t * iters, 'integer(4) atomic - and capture +')
  call check_eq(c8, int(t, 8) * int(iters, 8) * int(iters + 1, 8) / 2 * 1000000_8 - int(t * iters, 8), &
                'integer(8) atomic seq_cst + and capture -')
  call check_near(real(f4, 8), 0.25d0 * t * iters, 0d0, 'real(4) atomic +')
  call check_near(f8, 0.5d0 * t * iters, 0d0, 'real(8) atomic +')
  call check_near(product8, 2d0**(4 * t), 0d0, 'real(8) atomic *')
  call check_near(real(real(z4), 8), real(t * iters, 8), 0d0, 'complex(4) atomic + (real part)')
  call check_near(real(aimag(z4), 8), -real(t * iters, 8), 0d0, 'complex(4) atomic + (imaginary part)')
  call check_near(aimag(z8), 2d0 * t * iters, 0d0, 'complex(8) atomic +')
  call check_eq(top, int((t - 1) * iters + iters, 8), 'atomic max')
  call check_near(low, 1d0, 0d0, 'atomic min')
  call check_eq(bits, 2**30 - 1, 'atomic ior')
  call check(every, 'atomic .and.')
  call check(toggle .eqv. (mod(t * iters, 2) == 1), 'atomic .neqv.')
  call check_eq(captured_sum, int(t * iters, 8), 'captures made')

  ! ---- read and write: a flag published with a write, polled with reads ----
  flags_seen = 0
  flag = .false.
  !$omp parallel num_threads(2) reduction(+:flags_seen)
  if (omp_get_thread_num() == 0) then
    !$omp atomic write
    c4 = 12345
    !$omp atomic write seq_cst
    flag = .true.
  else
    do
      !$omp atomic read seq_cst
      every = flag
      if (every) exit
    end do
    !$omp atomic read
    i = c4
    if (i == 12345) flags_seen = flags_seen + 1
  end if
  !$omp end parallel
  call check_eq(flags_seen, 1, 'atomic read after a seq_cst atomic write')
  call summary('c8 ' // str(c8) // ' bits ' // str(int(bits, 8)) // ' ok')

contains

  integer function serial_mod3()
    integer :: j
    serial_mod3 = 0
    do j = 1, iters
      serial_mod3 = serial_mod3 + mod(j, 3)
    end do
  end function

end program f_atomic
