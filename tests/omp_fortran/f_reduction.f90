! Reductions as gfortran lowers them: whole arrays (explicit-shape,
! allocatable, assumed-shape dummies), which it reduces itself into each
! member's private copy and then under GOMP_atomic_start/end; every
! intrinsic operator and procedure (+ * - max min iand ior ieor .and. .or.
! .eqv. .neqv.) on integer kinds 1, 2, 4, 8, real 4 and 8, complex, logical;
! and user-defined reductions (declare reduction) on a derived type and
! on arrays of it.  Every result is computed serially beside.
module f_reduction_types
  implicit none
  type :: stats
    integer(8) :: count = 0
    real(8) :: total = 0, biggest = -huge(1d0)
  end type
contains
  elemental subroutine stats_merge(into, from)
    type(stats), intent(inout) :: into
    type(stats), intent(in) :: from
    into%count = into%count + from%count
    into%total = into%total + from%total
    into%biggest = max(into%biggest, from%biggest)
  end subroutine
end module

program f_reduction
  use omp_lib
  use fcorpus
  use f_reduction_types
  implicit none
  integer, parameter :: n = 997, bins = 13
  integer :: t, i, r
  integer :: hist(bins), want_hist(bins)
  integer, allocatable :: ahist(:)
  real(8) :: rsum(3), want_rsum(3)
  integer(1) :: i1
  integer(2) :: i2
  integer(8) :: i8, want_i8, bits_and, bits_or, bits_xor
  real(4) :: r4
  real(8) :: r8, rmax, rmin, rprod
  complex(8) :: z
  complex(4) :: z4
  logical :: all_pos, any_big, parity, same
  type(stats) :: st, want_st
  type(stats) :: per_bin(4)
  !$omp declare reduction(merge : stats : stats_merge(omp_out, omp_in)) initializer(omp_priv = stats())

  call corpus_begin('f_reduction')
  t = corpus_threads()

  do r = 1, 5
    ! ---- arrays: explicit-shape and allocatable ----
    hist = 0
    allocate (ahist(bins))
    ahist = 0
    rsum = 0
    !$omp parallel do reduction(+:hist, ahist, rsum) schedule(dynamic, 7)
    do i = 1, n * r
      hist(mod(i * 31, bins) + 1) = hist(mod(i * 31, bins) + 1) + 1
      ahist(mod(i, bins) + 1) = ahist(mod(i, bins) + 1) + 2
      rsum(mod(i, 3) + 1) = rsum(mod(i, 3) + 1) + real(i, 8)
    end do
    want_hist = 0
    want_rsum = 0
    do i = 1, n * r
      want_hist(mod(i * 31, bins) + 1) = want_hist(mod(i * 31, bins) + 1) + 1
      want_rsum(mod(i, 3) + 1) = want_rsum(mod(i, 3) + 1) + real(i, 8)
    end do
    do i = 1, bins
      call check_eq(hist(i), want_hist(i), 'array reduction, bin ' // str(int(i, 8)))
    end do
    call check_eq(sum(ahist), 2 * n * r, 'allocatable array reduction')
    do i = 1, 3
      call check_near(rsum(i), want_rsum(i), 0d0, 'real array reduction')
    end do
    call assumed_shape(ahist)
    deallocate (ahist)
  end do

  ! ---- every operator, several kinds ----
  i1 = 0
  i2 = 0
  i8 = 0
  r4 = 0
  r8 = 0
  rprod = 1
  rmax = -huge(1d0)
  rmin = huge(1d0)
  z = 0
  z4 = 0
  bits_and = -1
  bits_or = 0
  bits_xor = 0
  all_pos = .true.
  any_big = .false.
  parity = .false.
  same = .true.
  !$omp parallel do reduction(+:i1, i2, r4, z, z4) reduction(-:i8) reduction(*:rprod) &
  !$omp& reduction(max:rmax) reduction(min:rmin) reduction(iand:bits_and) reduction(ior:bits_or) &
  !$omp& reduction(ieor:bits_xor) reduction(.and.:all_pos) reduction(.or.:any_big) &
  !$omp& reduction(.neqv.:parity) reduction(.eqv.:same) reduction(+:r8)
  do i = 1, n
    i1 = i1 + int(merge(1, 0, mod(i, 10) == 0), 1)
    i2 = i2 + int(mod(i, 7), 2)
    i8 = i8 - int(i, 8) * 1000000_8
    r4 = r4 + 0.5
    r8 = r8 + 1d0 / real(i, 8)
    rprod = rprod * merge(1.001d0, 1d0, mod(i, 10) == 0)
    rmax = max(rmax, sin(real(i, 8)))
    rmin = min(rmin, cos(real(i, 8)))
    z = z + cmplx(i, -i, 8)
    z4 = z4 + cmplx(1, 2, 4)
    bits_and = iand(bits_and, not(int(2**mod(i, 5), 8)) + merge(0_8, 1_8, i < n + 1))
    bits_or = ior(bits_or, int(2**mod(i, 20), 8))
    bits_xor = ieor(bits_xor, int(i, 8))
    all_pos = all_pos .and. i > 0
    any_big = any_big .or. i == n
    parity = parity .neqv. (mod(i, 3) == 0)
    same = same .eqv. .true.
  end do
  call check_eq(int(i1, 8), int(n / 10, 8), 'integer(1) +')
  call check_eq(int(i2, 8), serial_i2(), 'integer(2) +')
  want_i8 = -int(n, 8) * int(n + 1, 8) / 2 * 1000000_8
  call check_eq(i8, want_i8, 'integer(8) -')
  call check_near(real(r4, 8), 0.5d0 * n, 0d0, 'real(4) +')
  call check_near(r8, serial_harmonic(), 1d-12, 'real(8) +')
  call check_near(rprod, 1.001d0**(n / 10), 1d-12, 'real(8) *')
  call check_near(rmax, serial_max(), 0d0, 'max')
  call check_near(rmin, serial_min(), 0d0, 'min')
  call check_near(real(z, 8), real(n, 8) * (n + 1) / 2, 0d0, 'complex(8) + (real part)')
  call check_near(aimag(z), -real(n, 8) * (n + 1) / 2, 0d0, 'complex(8) + (imaginary part)')
  call check_near(real(aimag(z4), 8), 2d0 * n, 0d0, 'complex(4) +')
  call check_eq(bits_and, serial_and(), 'iand')
  call check_eq(bits_or, int(2**20 - 1, 8), 'ior')
  call check_eq(bits_xor, serial_xor(), 'ieor')
  call check(all_pos .and. any_big .and. same, '.and. .or. .eqv.')
  call check(parity .eqv. (mod(n / 3, 2) == 1), '.neqv.')

  ! ---- user-defined reductions ----
  st = stats()
  !$omp parallel do reduction(merge:st)
  do i = 1, n
    st%count = st%count + 1
    st%total = st%total + real(i, 8)
    st%biggest = max(st%biggest, real(mod(i * 17, 101), 8))
  end do
  want_st = stats(n, real(n, 8) * (n + 1) / 2, 100d0)
  call check_eq(st%count, want_st%count, 'declare reduction: count')
  call check_near(st%total, want_st%total, 0d0, 'declare reduction: total')
  call check_near(st%biggest, want_st%biggest, 0d0, 'declare reduction: biggest')
  per_bin = stats()
  !$omp parallel do reduction(merge:per_bin)
  do i = 1, n
    per_bin(mod(i, 4) + 1)%count = per_bin(mod(i, 4) + 1)%count + 1
    per_bin(mod(i, 4) + 1)%total = per_bin(mod(i, 4) + 1)%total + 1d0
  end do
  call check_eq(sum(per_bin%count), int(n, 8), 'declare reduction on an array of a derived type')
  call check_near(per_bin(2)%total, real((n + 3) / 4, 8), 0d0, 'declare reduction, one element')

  call summary('hist ' // str(int(hist(1), 8)) // ' i8 ' // str(i8) // ' xor ' // str(bits_xor) // ' ok')

contains

  subroutine assumed_shape(v)
    integer, intent(inout) :: v(:)
    integer :: j
    !$omp parallel do reduction(+:v)
    do j = 1, 10 * size(v)
      v(mod(j, size(v)) + 1) = v(mod(j, size(v)) + 1) + 1
    end do
    call check_eq(sum(v), 2 * n * r + 10 * size(v), 'assumed-shape array reduction')
  end subroutine

  integer(8) function serial_i2()
    integer :: j
    integer(2) :: s
    s = 0
    do j = 1, n
      s = s + int(mod(j, 7), 2)
    end do
    serial_i2 = s
  end function

  real(8) function serial_harmonic()
    integer :: j
    serial_harmonic = 0
    do j = 1, n
      serial_harmonic = serial_harmonic + 1d0 / real(j, 8)
    end do
  end function

  real(8) function serial_max()
    integer :: j
    serial_max = -huge(1d0)
    do j = 1, n
      serial_max = max(serial_max, sin(real(j, 8)))
    end do
  end function

  real(8) function serial_min()
    integer :: j
    serial_min = huge(1d0)
    do j = 1, n
      serial_min = min(serial_min, cos(real(j, 8)))
    end do
  end function

  integer(8) function serial_and()
    integer :: j
    serial_and = -1
    do j = 1, n
      serial_and = iand(serial_and, not(int(2**mod(j, 5), 8)) + merge(0_8, 1_8, j < n + 1))
    end do
  end function

  integer(8) function serial_xor()
    integer :: j
    serial_xor = 0
    do j = 1, n
      serial_xor = ieor(serial_xor, int(j, 8))
    end do
  end function

end program f_reduction
