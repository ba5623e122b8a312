! Cancellation from Fortran (the program runs itself again with
! OMP_CANCELLATION=true): cancel do (the cancelling member runs no
! iteration after it); cancel sections; cancel parallel with a
! cancellation point; cancel taskgroup (tasks created in the cancelled
! group never run); omp_get_cancellation; a region after each cancelled one
! runs whole.
program f_cancel
  use omp_lib
  use fcorpus
  implicit none
  integer, parameter :: n = 100000
  integer :: t, i, done, late, cancels, sections_run, tasks_run, reached
  logical :: cancelled_here

  call reexec_with('OMP_CANCELLATION', 'true')
  call corpus_begin('f_cancel')
  t = corpus_threads()
  ! transfer: flang 19's omp_lib declares omp_get_cancellation integer(4)
  call check(transfer(omp_get_cancellation(), .true._4), 'omp_get_cancellation with OMP_CANCELLATION=true')

  ! ---- cancel do ----
  ! The member that cancels runs no iteration after it (OpenMP: it goes to
  ! the construct's end); the others stop at their next cancellation
  ! point, which a member kept off its CPU (under qemu, say) may reach
  ! only after every iteration has run, so their count is not checked.
  done = 0
  late = 0
  cancels = 0
  !$omp parallel reduction(+:done, late, cancels) private(cancelled_here)
  cancelled_here = .false.
  !$omp do schedule(dynamic, 10)
  do i = 1, n
    if (cancelled_here) late = late + 1
    done = done + 1
    if (i == 50) then
      cancelled_here = .true.
      cancels = cancels + 1
      !$omp cancel do
    end if
    !$omp cancellation point do
  end do
  !$omp end do
  !$omp end parallel
  call check_eq(late, 0, 'iterations the cancelling member ran after its cancel do')
  call check_eq(cancels, 1, 'members that reached the cancel do (iteration 50 runs, whatever else is cancelled)')
  call check(done >= 1 .and. done <= n, 'cancel do ran ' // str(int(done, 8)) // ' iterations of ' // &
             str(int(n, 8)))
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

  ! ---- cancel taskgroup: a task cancels its group; once it is done, the
  ! tasks created in the cancelled group never run ----
  tasks_run = 0
  !$omp parallel
  !$omp single
  !$omp taskgroup
  !$omp task shared(tasks_run)
  !$omp atomic
  tasks_run = tasks_run + 1
  !$omp cancel taskgroup
  !$omp end task
  !$omp taskwait
  do i = 1, 1000
    !$omp task shared(tasks_run)
    !$omp atomic
    tasks_run = tasks_run + 1
    !$omp end task
  end do
  !$omp end taskgroup
  !$omp end single
  !$omp end parallel
  call check_eq(tasks_run, 1, 'tasks that ran in a cancelled taskgroup')
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
