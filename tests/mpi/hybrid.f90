! hybrid.f90: the Fortran MPI + OpenMP program of the usual shapes, beside
! hybrid.c.  A 2-D heat equation on an n x n grid split into one block of
! columns per rank.  Each sweep, one parallel region: the primary thread
! exchanges the halo columns with the neighbours (MPI_Sendrecv; MPI
! funneled) while the others wait at a barrier, then the team updates the
! block (a worksharing loop with a max-reduction of the change), and after
! the region an MPI_Allreduce of the change.  Prints the sweeps, the final
! change and a checksum, which do not depend on the number of threads or on
! the runtime, then the time.
!
!   mpirun -np R [--bind-to core|none] -x OMP_NUM_THREADS=T hybrid_f [--n N] [--sweeps N]
!
! Built by mpifort (gfortran -fopenmp); run on libmuster-omp with
! LD_PRELOAD (mpirun -x LD_PRELOAD=...).
program hybrid_f
  use mpi
  use omp_lib
  implicit none
  integer :: provided, ierr, rank, ranks, n, sweeps, first, width, left, right, sweep, i, j
  real(8), allocatable :: u(:, :), v(:, :)
  real(8) :: change, local, mine, checksum, started

  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierr)
  call read_options(n, sweeps)
  ! This rank's columns first .. first + width - 1, with a ghost column each side.
  first = n * rank / ranks + 1
  width = n * (rank + 1) / ranks - first + 1
  allocate (u(0:n + 1, first - 1:first + width), v(0:n + 1, first - 1:first + width))
  u = 0
  do j = first, first + width - 1
    do i = 1, n
      u(i, j) = sin(3.14159265358979d0 * i / (n + 1)) * sin(3.14159265358979d0 * j / (n + 1))
    end do
  end do
  v = u
  left = merge(rank - 1, MPI_PROC_NULL, rank > 0)
  right = merge(rank + 1, MPI_PROC_NULL, rank + 1 < ranks)
  started = MPI_Wtime()
  change = 0
  do sweep = 1, sweeps
    local = 0
    !$omp parallel private(i, ierr) reduction(max:local)
    !$omp master
    call MPI_Sendrecv(u(:, first), n + 2, MPI_DOUBLE_PRECISION, left, 0, u(:, first + width), n + 2, &
                      MPI_DOUBLE_PRECISION, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(u(:, first + width - 1), n + 2, MPI_DOUBLE_PRECISION, right, 1, u(:, first - 1), n + 2, &
                      MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    !$omp end master
    !$omp barrier
    !$omp do schedule(static)
    do j = first, first + width - 1
      do i = 1, n
        v(i, j) = 0.5d0 * u(i, j) + 0.125d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
        local = max(local, abs(v(i, j) - u(i, j)))
      end do
    end do
    !$omp end do
    !$omp workshare
    u(1:n, first:first + width - 1) = v(1:n, first:first + width - 1)
    !$omp end workshare
    !$omp end parallel
    call MPI_Allreduce(local, change, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  end do
  ! The checksum column by column, whatever the split: summed on rank 0.
  mine = 0
  do j = first, first + width - 1
    do i = 1, n
      mine = mine + u(i, j) * (i + n * j)
    end do
  end do
  call MPI_Reduce(mine, checksum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a,i0)') 'sweeps = ', sweeps
    write (*, '(a,es16.9)') 'change = ', change
    write (*, '(a,es16.9)') 'checksum = ', checksum
    write (*, '(a,i0,a,i0,a,f10.6,a)') 'ranks = ', ranks, ', threads = ', omp_get_max_threads(), ', time = ', &
      MPI_Wtime() - started, ' s'
  end if
  call MPI_Finalize(ierr)

contains

  subroutine read_options(n, sweeps)
    integer, intent(out) :: n, sweeps
    character(len=32) :: word, value
    integer :: k, status
    n = 200
    sweeps = 500
    do k = 1, command_argument_count() - 1, 2
      call get_command_argument(k, word)
      call get_command_argument(k + 1, value)
      if (word == '--n') then
        read (value, *, iostat=status) n
        if (status /= 0 .or. n < 4) call fall_back(word, value, 'at least 4', 200, n)
      else if (word == '--sweeps') then
        read (value, *, iostat=status) sweeps
        if (status /= 0 .or. sweeps < 1) call fall_back(word, value, 'at least 1', 500, sweeps)
      else
        write (0, '(a)') 'hybrid_f: unknown option "' // trim(word) // '" (--n N, --sweeps N)'
        call exit(2)
      end if
    end do
  end subroutine

  subroutine fall_back(word, value, range, default, setting)
    character(len=*), intent(in) :: word, value, range
    integer, intent(in) :: default
    integer, intent(out) :: setting
    write (0, '(a,i0)') 'hybrid_f: ' // trim(word) // ' "' // trim(value) // '": a whole number, ' // range // &
      '; using ', default
    setting = default
  end subroutine

end program hybrid_f
