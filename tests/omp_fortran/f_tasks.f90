! Tasks from Fortran: a recursive task tree (fib) with taskwait; depend on
! array sections (in, out, inout over a(lo:hi) blocks), whose order the
! results show; taskgroup waiting for descendants; if(.false.), final,
! mergeable and untied; shared, firstprivate and private data of tasks,
! arrays among them; a detached task completed by omp_fulfill_event (the
! Fortran name, handle by value) from another task.  Random delays put the
! tasks out of step.
program f_tasks
  use omp_lib
  use fcorpus
  implicit none
  integer, parameter :: n = 64, blk = 8
  integer :: t, i, b, got, descendants, ran_inline, fulfilled_first
  real(8) :: a(n), want(n)
  integer(omp_event_handle_kind) :: event
  integer :: order(3), next

  call corpus_begin('f_tasks')
  t = corpus_threads()

  ! ---- a recursive task tree ----
  got = 0
  !$omp parallel
  !$omp single
  got = fib(18)
  !$omp end single
  !$omp end parallel
  call check_eq(got, 2584, 'fib(18) by tasks')

  ! ---- depend on array sections: a pipeline over blocks ----
  a = 0
  !$omp parallel private(b)
  !$omp single
  do b = 0, n / blk - 1
    !$omp task depend(out: a(b * blk + 1:(b + 1) * blk)) firstprivate(b)
    call delay_for(b, 1)
    a(b * blk + 1:(b + 1) * blk) = real(b, 8)
    !$omp end task
  end do
  do b = 0, n / blk - 1
    !$omp task depend(inout: a(b * blk + 1:(b + 1) * blk)) firstprivate(b)
    call delay_for(b, 2)
    a(b * blk + 1:(b + 1) * blk) = a(b * blk + 1:(b + 1) * blk) * 10d0 + 1d0
    !$omp end task
  end do
  do b = 1, n / blk - 1
    ! Reads the block before it (as it is after both steps), writes its own.
    !$omp task depend(in: a((b - 1) * blk + 1:b * blk)) depend(inout: a(b * blk + 1:(b + 1) * blk)) &
    !$omp& firstprivate(b)
    call delay_for(b, 3)
    a(b * blk + 1) = a(b * blk + 1) + a(b * blk)
    !$omp end task
  end do
  !$omp end single
  !$omp end parallel
  do b = 0, n / blk - 1
    want(b * blk + 1:(b + 1) * blk) = real(b, 8) * 10d0 + 1d0
  end do
  do b = 1, n / blk - 1
    want(b * blk + 1) = want(b * blk + 1) + want(b * blk)
  end do
  do i = 1, n
    if (a(i) /= want(i)) call fail('depend on array sections: element ' // str(int(i, 8)))
  end do

  ! ---- taskgroup waits for descendants ----
  descendants = 0
  !$omp parallel
  !$omp single
  !$omp taskgroup
  do i = 1, 10
    !$omp task
    !$omp task
    call delay_for(i, 4)
    !$omp atomic
    descendants = descendants + 1
    !$omp end task
    !$omp end task
  end do
  !$omp end taskgroup
  call check_eq(descendants, 10, 'taskgroup waits for grandchildren')
  !$omp end single
  !$omp end parallel

  ! ---- if(.false.), final, mergeable, untied ----
  ran_inline = 0
  !$omp parallel
  !$omp single
  !$omp task if(.false.) shared(ran_inline)
  ran_inline = ran_inline + 1
  !$omp end task
  call check_eq(ran_inline, 1, 'a task with if(.false.) has run when its construct ends')
  !$omp task final(.true.) shared(ran_inline)
  !$omp task shared(ran_inline)
  if (.not. omp_in_final()) call fail('a task inside a final task is final')
  ran_inline = ran_inline + 1
  !$omp end task
  !$omp end task
  !$omp taskwait
  !$omp task mergeable untied shared(ran_inline)
  !$omp atomic
  ran_inline = ran_inline + 1
  !$omp end task
  !$omp taskwait
  !$omp end single
  !$omp end parallel
  call check_eq(ran_inline, 3, 'if(.false.), final and mergeable untied tasks')

  ! ---- a detached task, fulfilled from another task ----
  fulfilled_first = 0
  next = 0
  order = 0
  !$omp parallel
  !$omp single
  !$omp task detach(event) depend(out: order) shared(next, order)
  !$omp atomic capture
  next = next + 1
  order(1) = next
  !$omp end atomic
  !$omp end task
  !$omp task depend(in: order) shared(next, order)
  !$omp atomic capture
  next = next + 1
  order(3) = next
  !$omp end atomic
  !$omp end task
  !$omp task shared(next, order, event)
  call delay_for(7, 5)
  !$omp atomic capture
  next = next + 1
  order(2) = next
  !$omp end atomic
  call omp_fulfill_event(event)
  !$omp end task
  !$omp end single
  !$omp end parallel
  call check(order(3) == 3, 'the successor of a detached task waits for omp_fulfill_event (order ' // &
             str(int(order(1), 8)) // ' ' // str(int(order(2), 8)) // ' ' // str(int(order(3), 8)) // ')')

  call summary('fib ' // str(int(got, 8)) // ' last ' // str(nint(a(n), 8)) // ' ok')

contains

  recursive integer function fib(k) result(f)
    integer, intent(in) :: k
    integer :: x, y
    if (k < 2) then
      f = k
      return
    end if
    !$omp task shared(x) if(k > 8)
    x = fib(k - 1)
    !$omp end task
    !$omp task shared(y) if(k > 8)
    y = fib(k - 2)
    !$omp end task
    !$omp taskwait
    f = x + y
  end function

  subroutine delay_for(k, salt)
    integer, intent(in) :: k, salt
    integer(8) :: seed
    seed = corpus_seed(k, salt)
    call corpus_delay(seed, 50)
  end subroutine

end program f_tasks
