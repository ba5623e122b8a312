! Locks through Fortran handles: omp_set/unset_lock guard a non-atomic
! update with an occupancy check; omp_test_lock fails while another thread
! holds the lock; nest locks count their depth (omp_test_nest_lock gives
! the new depth to the owner, 0 to others) in a handle of
! omp_nest_lock_kind; init/destroy cycles, locks in an array and in
! allocated memory; the routines at OMP_1.0 (what binaries of gcc before
! 4.4 call) on the same handles; omp_init_lock_with_hint_ where the
! runtime has it (libgomp 12 does not).
program f_locks
  use omp_lib
  use fcorpus
  use, intrinsic :: iso_c_binding
  implicit none
  integer, parameter :: iters = 200
  integer(omp_lock_kind) :: lock
  integer(omp_lock_kind), allocatable :: many(:)
  integer(omp_nest_lock_kind) :: nest
  integer :: t, i, counter, inside, test_wins, depth_sum, others_zero
  integer :: hits(8)

  abstract interface
    subroutine lock_routine(handle)
      import :: omp_lock_kind
      integer(omp_lock_kind) :: handle
    end subroutine
    subroutine nest_routine(handle)
      import :: omp_nest_lock_kind
      integer(omp_nest_lock_kind) :: handle
    end subroutine
    subroutine hinted_init(handle, hint)
      import :: omp_lock_kind, omp_sync_hint_kind
      integer(omp_lock_kind) :: handle
      integer(omp_sync_hint_kind) :: hint
    end subroutine
  end interface

  call corpus_begin('f_locks')
  t = corpus_threads()

  ! ---- a simple lock, set and test alternately ----
  call omp_init_lock(lock)
  counter = 0
  inside = 0
  test_wins = 0
  !$omp parallel reduction(+:test_wins) private(i)
  block
    integer(8) :: seed
    seed = corpus_seed(omp_get_thread_num(), 23)
    do i = 1, iters
      if (mod(i, 2) == 1) then
        call omp_set_lock(lock)
      else
        do while (.not. omp_test_lock(lock))
          call corpus_delay(seed, 0)
        end do
        test_wins = test_wins + 1
      end if
      call guarded(seed)
      call omp_unset_lock(lock)
    end do
  end block
  !$omp end parallel
  call check_eq(counter, t * iters, 'updates under a simple lock')
  call check_eq(test_wins, t * iters / 2, 'successful omp_test_lock calls')
  call omp_destroy_lock(lock)

  ! ---- omp_test_lock fails while held ----
  call omp_init_lock(lock)
  call omp_set_lock(lock)
  call check(.not. omp_test_lock(lock), 'omp_test_lock on a held lock')
  !$omp parallel num_threads(2)
  if (omp_get_thread_num() == 1) call check(.not. omp_test_lock(lock), 'omp_test_lock by another thread')
  !$omp end parallel
  call omp_unset_lock(lock)
  call check(omp_test_lock(lock), 'omp_test_lock on a free lock')
  call omp_unset_lock(lock)
  call omp_destroy_lock(lock)

  ! ---- a nest lock ----
  call omp_init_nest_lock(nest)
  depth_sum = 0
  others_zero = 0
  !$omp parallel reduction(+:depth_sum, others_zero)
  call omp_set_nest_lock(nest)
  depth_sum = depth_sum + omp_test_nest_lock(nest)   ! 2
  depth_sum = depth_sum + omp_test_nest_lock(nest)   ! 3
  !$omp atomic
  counter = counter + 1
  call omp_unset_nest_lock(nest)
  call omp_unset_nest_lock(nest)
  call omp_unset_nest_lock(nest)
  !$omp end parallel
  call check_eq(depth_sum, 5 * t, 'depths from omp_test_nest_lock')
  call omp_set_nest_lock(nest)
  !$omp parallel num_threads(2) reduction(+:others_zero)
  if (omp_get_thread_num() == 1) then
    if (omp_test_nest_lock(nest) == 0) others_zero = others_zero + 1
  end if
  !$omp end parallel
  call omp_unset_nest_lock(nest)
  call check_eq(others_zero, 1, 'omp_test_nest_lock by another thread')
  call omp_destroy_nest_lock(nest)

  ! ---- many locks, in allocated memory, init/destroy cycles ----
  allocate (many(8))
  hits = 0
  do i = 1, 8
    call omp_init_lock(many(i))
  end do
  !$omp parallel private(i)
  do i = 1, 8 * iters
    call omp_set_lock(many(mod(i, 8) + 1))
    hits(mod(i, 8) + 1) = hits(mod(i, 8) + 1) + 1
    call omp_unset_lock(many(mod(i, 8) + 1))
  end do
  !$omp end parallel
  do i = 1, 8
    call check_eq(hits(i), t * iters, 'updates under one lock of an array')
    call omp_destroy_lock(many(i))
  end do
  deallocate (many)
  do i = 1, 1000
    call omp_init_nest_lock(nest)
    call omp_set_nest_lock(nest)
    call omp_unset_nest_lock(nest)
    call omp_destroy_nest_lock(nest)
  end do

  call old_locks()
  call hinted_lock()
  call summary('threads ' // str(int(t, 8)) // ' lock updates ' // str(int(counter, 8)) // ' ok')

contains

  subroutine guarded(seed)
    integer(8), intent(inout) :: seed
    integer :: v
    if (inside /= 0) call fail('a simple lock was taken while another thread held it')
    inside = 1
    v = counter
    if (iand(corpus_rand(seed), 63_8) == 0) call corpus_delay(seed, 30)
    counter = v + 1
    inside = 0
  end subroutine

  ! The routines gcc before 4.4 bound (at OMP_1.0), on the same handles.
  subroutine old_locks()
    procedure(lock_routine), pointer :: init, set, unset, destroy
    procedure(nest_routine), pointer :: init_nest, set_nest, unset_nest, destroy_nest
    integer :: n
    call c_f_procpointer(runtime_entry('omp_init_lock_', 'OMP_1.0'), init)
    call c_f_procpointer(runtime_entry('omp_set_lock_', 'OMP_1.0'), set)
    call c_f_procpointer(runtime_entry('omp_unset_lock_', 'OMP_1.0'), unset)
    call c_f_procpointer(runtime_entry('omp_destroy_lock_', 'OMP_1.0'), destroy)
    call c_f_procpointer(runtime_entry('omp_init_nest_lock_', 'OMP_1.0'), init_nest)
    call c_f_procpointer(runtime_entry('omp_set_nest_lock_', 'OMP_1.0'), set_nest)
    call c_f_procpointer(runtime_entry('omp_unset_nest_lock_', 'OMP_1.0'), unset_nest)
    call c_f_procpointer(runtime_entry('omp_destroy_nest_lock_', 'OMP_1.0'), destroy_nest)
    call check(associated(init) .and. associated(set) .and. associated(unset) .and. associated(destroy), &
               'the lock routines at OMP_1.0')
    call check(associated(init_nest) .and. associated(set_nest) .and. associated(unset_nest) .and. &
               associated(destroy_nest), 'the nest lock routines at OMP_1.0')
    call init(lock)
    call init_nest(nest)
    n = 0
    !$omp parallel private(i) reduction(+:n)
    do i = 1, iters
      call set(lock)
      counter = counter + 1
      call unset(lock)
      call set_nest(nest)
      call set_nest(nest)
      n = n + 1
      call unset_nest(nest)
      call unset_nest(nest)
    end do
    !$omp end parallel
    call check_eq(n, t * iters, 'nest lock entries at OMP_1.0')
    call destroy(lock)
    call destroy_nest(nest)
  end subroutine

  ! omp_lib declares omp_init_lock_with_hint; libgomp 12 does not export it.
  subroutine hinted_lock()
    procedure(hinted_init), pointer :: init_with_hint
    call c_f_procpointer(runtime_entry('omp_init_lock_with_hint_', ''), init_with_hint)
    if (associated(init_with_hint)) then
      call init_with_hint(lock, omp_sync_hint_contended)
    else
      call omp_init_lock(lock)
    end if
    !$omp parallel
    call omp_set_lock(lock)
    counter = counter + 1
    call omp_unset_lock(lock)
    !$omp end parallel
    call omp_destroy_lock(lock)
  end subroutine

end program f_locks
