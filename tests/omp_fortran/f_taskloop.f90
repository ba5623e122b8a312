! taskloop from Fortran: grainsize and num_tasks, nogroup with a taskwait,
! reductions (+ on an integer and a real; gfortran 12 has no in_reduction
! for Fortran taskloops), firstprivate and lastprivate, collapse(2), if(.false.),
! taskloop simd, and taskloops made by several members at once.
program f_taskloop
  use omp_lib
  use fcorpus
  implicit none
  integer, parameter :: n = 1000
  integer :: t, i, j, hits(n), isum, last, made
  real(8) :: rsum
  integer :: grid(20, 30)

  call corpus_begin('f_taskloop')
  t = corpus_threads()

  hits = 0
  !$omp parallel
  !$omp single
  !$omp taskloop grainsize(37)
  do i = 1, n
    hits(i) = hits(i) + 1
  end do
  !$omp end taskloop
  !$omp taskloop num_tasks(7)
  do i = 1, n
    hits(i) = hits(i) + 10
  end do
  !$omp end taskloop
  !$omp taskloop nogroup
  do i = 1, n
    !$omp atomic
    hits(i) = hits(i) + 100
  end do
  !$omp end taskloop
  !$omp taskwait
  !$omp end single
  !$omp end parallel
  do i = 1, n
    if (hits(i) /= 111) call fail('taskloop coverage at ' // str(int(i, 8)) // ': ' // str(int(hits(i), 8)))
  end do

  isum = 0
  rsum = 0
  last = -1
  !$omp parallel
  !$omp single
  !$omp taskloop reduction(+:isum, rsum) lastprivate(last) grainsize(16)
  do i = 1, n
    isum = isum + i
    rsum = rsum + 0.5d0
    last = i
  end do
  !$omp end taskloop
  !$omp end single
  !$omp end parallel
  call check_eq(isum, n * (n + 1) / 2, 'taskloop reduction(+) integer')
  call check_near(rsum, 0.5d0 * n, 0d0, 'taskloop reduction(+) real')
  call check_eq(last, n, 'taskloop lastprivate')

  grid = 0
  !$omp parallel
  !$omp single
  !$omp taskloop collapse(2) num_tasks(11)
  do i = 1, 20
    do j = 1, 30
      grid(i, j) = i * 100 + j
    end do
  end do
  !$omp end taskloop
  !$omp taskloop if(.false.)
  do i = 1, 20
    grid(i, 1) = grid(i, 1) + 1
  end do
  !$omp end taskloop
  !$omp taskloop simd grainsize(50)
  do i = 1, n
    hits(i) = hits(i) - 11
  end do
  !$omp end taskloop simd
  !$omp end single
  !$omp end parallel
  do i = 1, 20
    do j = 1, 30
      if (grid(i, j) /= i * 100 + j + merge(1, 0, j == 1)) call fail('taskloop collapse(2) / if(.false.)')
    end do
  end do
  if (any(hits /= 100)) call fail('taskloop simd')

  ! ---- every member makes a taskloop ----
  made = 0
  !$omp parallel reduction(+:made)
  !$omp taskloop grainsize(10)
  do i = 1, 100
    !$omp atomic
    hits(i) = hits(i) + 1
  end do
  !$omp end taskloop
  made = made + 1
  !$omp end parallel
  do i = 1, 100
    call check_eq(hits(i), 100 + made, 'taskloops from every member')
  end do

  call summary('isum ' // str(int(isum, 8)) // ' grid ' // str(int(grid(20, 30), 8)) // ' ok')
end program f_taskloop
