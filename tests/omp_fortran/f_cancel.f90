! Cancellation from Fortran (the program runs itself again with
! OMP_CANCELLATION=true): cancel do stops a worksharing loop once its
! condition holds and the iterations after that point are not all run;
! cancel sections; cancel parallel with a cancellation point; cancel
! taskgroup stops tasks not yet started; omp_get_cancellation; a region
! after each cancelled one runs whole.
program f_cancel
  use omp_lib
  use fcorpus
  implicit none
  integer, parameter :: n = 100000
  integer :: t, i, done, sections_run, tasks_run, so_far, reached

  call reexec_with('OMP_CANCELLATION', 'true')
  call corpus_begin('f_cancel')
  t = corpus_threads()
  ! transfer: flang 19's omp_lib declares omp_get_cancellation integer(4)
  call check(transfer(omp_get_cancellation(), .true._4), 'omp_get_cancellation with OMP_CANCELLATION=true')

  ! ---- cancel do ----
  done = 0
  !$omp parallel reduction(+:done)
  !$omp do schedule(dynamic, 10)
  do i = 1, n
    done = done + 1
    if (i == 50) then
      !$omp cancel do
    end if
    !$omp cancellation point do
  end do
  !$omp end do
  !$omp end parallel
  call check(done >= 1 .and. done < n, 'cancel do ran ' // str(int(done, 8)) // ' iterations of ' // str(int(n, 8)))
  call whole_region('cancel do')

  ! ---- cancel sections ----
  sections_run = 0
  !$omp parallel reduction(+:sections_run)
  !$omp sections
  !$omp section
  sections_run = sections_run + 1
  !$omp cancel sections
  !$omp section
  sections_run = sections_run + 1
  !$omp end sections
  !$omp end parallel
  call check(sections_run >= 1 .and. sections_run <= 2, 'cancel sections')
  call whole_region('cancel sections')

  ! ---- cancel parallel ----
  reached = 0
  !$omp parallel reduction(+:reached)
  if (omp_get_thread_num() == 0) then
    !$omp cancel parallel
  end if
  !$omp barrier
  reached = reached + 1
  !$omp end parallel
  call check(reached <= t, 'cancel parallel: members past the barrier')
  if (t == 1) call check_eq(reached, 0, 'cancel parallel at one thread')
  call whole_region('cancel parallel')

  ! ---- cancel taskgroup ----
  tasks_run = 0
  !$omp parallel
  !$omp single
  !$omp taskgroup
  do i = 1, 1000
    !$omp task shared(tasks_run) private(so_far)
    !$omp atomic capture
    tasks_run = tasks_run + 1
    so_far = tasks_run
    !$omp end atomic
    if (so_far >= 5) then
      !$omp cancel taskgroup
    end if
    !$omp end task
  end do
  !$omp end taskgroup
  !$omp end single
  !$omp end parallel
  call check(tasks_run >= 5 .and. tasks_run < 1000, 'cancel taskgroup ran ' // str(int(tasks_run, 8)) // ' tasks')
  call whole_region('cancel taskgroup')

  call summary('cancellation on, threads ' // str(int(t, 8)) // ' ok')

contains

  subroutine whole_region(what)
    character(len=*), intent(in) :: what
    integer :: k, count
    count = 0
    !$omp parallel do reduction(+:count)
    do k = 1, 1000
      count = count + 1
    end do
    call check_eq(count, 1000, 'a loop after ' // what)
  end subroutine

end program f_cancel
