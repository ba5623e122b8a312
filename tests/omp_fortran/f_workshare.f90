! !$omp workshare, which gfortran lowers itself (into single regions,
! worksharing loops and barriers, with copyprivate for scalars): array
! assignments, WHERE and FORALL, array intrinsics (SUM, MAXVAL, DOT_PRODUCT,
! MATMUL, CSHIFT), scalar assignments the team then reads, an atomic and a
! critical inside, nowait, and parallel workshare.  Sizes that do not divide
! among the team, repeated so every member's share changes.  Not an array
! assigned a transformational function of itself (c = cshift(c, 1)): gfortran
! 12 has every member evaluate the right side into a temporary and then
! shares out the copy with no barrier between, so a member may read c
! already partly overwritten (on libgomp as on any runtime).
program f_workshare
  use omp_lib
  use fcorpus
  implicit none
  integer, parameter :: n = 1003, m = 37
  real(8) :: a(n), b(n), c(n), d(n), ref(n)
  real(8) :: x(m, m), y(m, m), z(m, m)
  integer :: k(n), counts(n)
  real(8) :: total, biggest, dot, s
  integer :: i, j, t, rounds, hits, positives

  call corpus_begin('f_workshare')
  t = corpus_threads()
  do i = 1, n
    b(i) = real(mod(i * 7, 23), 8) - 11d0
    c(i) = real(i, 8) / 3d0
  end do
  do j = 1, m
    do i = 1, m
      x(i, j) = real(i - j, 8) / real(m, 8)
      y(i, j) = real(mod(i * j, 5), 8)
    end do
  end do

  do rounds = 1, 20
    hits = 0
    !$omp parallel shared(a, b, c, d, k, counts, x, y, z, total, biggest, dot, hits, positives)
    !$omp workshare
    a = 2d0 * b + c
    where (a > 0d0)
      k = 1
    elsewhere
      k = -1
    end where
    forall (i = 1:n) counts(i) = mod(i + rounds, 5)
    total = sum(a)
    biggest = maxval(a)
    dot = dot_product(b, c)
    positives = count(k > 0)
    z = matmul(x, y)
    d = cshift(c, rounds)
    !$omp atomic
    hits = hits + 1
    !$omp end workshare
    ! Every member sees the scalars the workshare assigned.
    call check_near(total, sum(2d0 * b + c), 1d-12, 'the total a member sees after workshare')
    !$omp end parallel
    call check_eq(hits, 1, 'an atomic in a workshare runs once')
    ref = 2d0 * b + c
    do i = 1, n
      if (a(i) /= ref(i)) call fail('workshare array assignment, element ' // str(int(i, 8)))
      if (counts(i) /= mod(i + rounds, 5)) call fail('workshare forall, element ' // str(int(i, 8)))
      if (d(i) /= c(mod(i - 1 + rounds, n) + 1)) call fail('workshare cshift, element ' // str(int(i, 8)))
    end do
    call check_near(total, sum(ref), 1d-12, 'workshare sum')
    call check_near(biggest, maxval(ref), 0d0, 'workshare maxval')
    call check_near(dot, dot_product(b, c), 1d-12, 'workshare dot_product')
    call check_eq(positives, count(ref > 0d0), 'workshare where + count')
    s = maxval(abs(z - matmul(x, y)))
    call check_near(s, 0d0, 1d-12, 'workshare matmul')
  end do

  ! parallel workshare, nowait, and a critical inside
  hits = 0
  !$omp parallel workshare
  a = b * 2d0
  !$omp critical (ws)
  hits = hits + 1
  !$omp end critical (ws)
  !$omp end parallel workshare
  call check_eq(hits, 1, 'critical in parallel workshare runs once')
  do i = 1, n
    if (a(i) /= b(i) * 2d0) call fail('parallel workshare')
  end do
  !$omp parallel
  !$omp workshare
  a = -b
  !$omp end workshare nowait
  !$omp barrier
  !$omp single
  do i = 1, n
    if (a(i) /= -b(i)) call fail('workshare nowait, after a barrier')
  end do
  !$omp end single
  !$omp end parallel

  call summary('positives ' // str(int(positives, 8)) // ' total ' // str(nint(total, 8)) // ' ok')
end program f_workshare
