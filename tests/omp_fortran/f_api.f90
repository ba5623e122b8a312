! The omp_lib API through gfortran's Fortran names (omp_*_, and omp_*_8_
! when built with -fdefault-integer-8): kinds and constants; thread counts,
! dynamic, nested; wtime and wtick; the schedule (monotonic masked off);
! thread limit and active levels; levels, ancestors and team sizes in
! nested regions; omp_in_final; cancellation, binding, devices and teams
! ICVs; pause; allocators with traits; display_env.  Locks: f_locks;
! places: f_places; character arguments: f_text; events: f_tasks.
program f_api
  use omp_lib
  use fcorpus
  use, intrinsic :: iso_c_binding
  implicit none
  integer :: t, n, chunk, i, in_par, levels_seen
  integer(omp_sched_kind) :: kind
  integer(omp_sched_kind), parameter :: kinds(4) = [omp_sched_static, omp_sched_dynamic, omp_sched_guided, &
                                                    omp_sched_auto]
  character(len=200) :: facts
  real(8) :: tick
  ! omp_sched_monotonic (OpenMP 5.0), which gcc 12's omp_lib does not name yet
  integer(omp_sched_kind), parameter :: monotonic = -2147483647_omp_sched_kind - 1

  call corpus_begin('f_api')
  t = corpus_threads()

  ! ---- kinds and constants, as omp_lib gives them ----
  call check_eq(omp_sched_static, 1, 'omp_sched_static')
  call check_eq(omp_sched_auto, 4, 'omp_sched_auto')
  call check_eq(omp_proc_bind_spread, 4, 'omp_proc_bind_spread')
  call check(omp_lock_kind >= 4 .and. omp_nest_lock_kind >= 8, 'lock kinds hold a lock')
  call check(openmp_version >= 201511, 'openmp_version')

  ! ---- threads, dynamic, nested ----
  call check_eq(omp_get_max_threads(), t, 'omp_get_max_threads')
  call check(.not. omp_in_parallel(), 'omp_in_parallel outside a region')
  call check_eq(omp_get_num_threads(), 1, 'omp_get_num_threads outside')
  call check_eq(omp_get_thread_num(), 0, 'omp_get_thread_num outside')
  call check(omp_get_num_procs() >= 1, 'omp_get_num_procs')
  call omp_set_num_threads(t + 2)
  call check_eq(omp_get_max_threads(), t + 2, 'omp_set_num_threads then omp_get_max_threads')
  call omp_set_num_threads(t)
  in_par = 0
  !$omp parallel reduction(+:in_par)
  if (omp_in_parallel()) in_par = in_par + 1
  call check_eq(omp_get_num_threads(), t, 'team size')
  !$omp end parallel
  call check_eq(in_par, merge(t, 0, t > 1), 'members that see omp_in_parallel')
  call omp_set_dynamic(.true.)
  call check(omp_get_dynamic(), 'omp_set_dynamic(.true.)')
  call omp_set_dynamic(.false.)
  call check(.not. omp_get_dynamic(), 'omp_set_dynamic(.false.)')
  call omp_set_nested(.true.)
  call check(omp_get_nested(), 'omp_set_nested(.true.)')
  call omp_set_nested(.false.)
  call check(.not. omp_get_nested(), 'omp_set_nested(.false.)')

  ! ---- time ----
  tick = omp_get_wtick()
  call check(tick > 0d0 .and. tick < 1d0, 'omp_get_wtick')
  call check(omp_get_wtime() <= omp_get_wtime(), 'omp_get_wtime goes forward')

  ! ---- the schedule: every kind, with and without monotonic ----
  facts = ''
  do i = 1, 4
    call omp_set_schedule(kinds(i), 3 * i)
    call omp_get_schedule(kind, chunk)
    call check_eq(kind, kinds(i), 'omp_get_schedule kind after omp_set_schedule')
    if (kinds(i) /= omp_sched_auto) call check_eq(chunk, 3 * i, 'omp_get_schedule chunk')
  end do
  call omp_set_schedule(ior(omp_sched_dynamic, monotonic), 5)
  call omp_get_schedule(kind, chunk)
  ! gfortran's omp_get_schedule hides the monotonic bit (as libgomp's
  ! does); flang's binds the C routine, which keeps it: both are OpenMP.
  call check_eq(iand(kind, huge(kind)), omp_sched_dynamic, 'omp_get_schedule with monotonic')
  call check_eq(chunk, 5, 'chunk with monotonic')

  ! ---- limits and levels ----
  call check(omp_get_thread_limit() >= t, 'omp_get_thread_limit')
  call check(omp_get_supported_active_levels() >= 1, 'omp_get_supported_active_levels')
  call omp_set_max_active_levels(2)
  call check_eq(omp_get_max_active_levels(), 2, 'omp_set_max_active_levels(2)')
  call check_eq(omp_get_level(), 0, 'omp_get_level outside')
  call check_eq(omp_get_active_level(), 0, 'omp_get_active_level outside')
  call check_eq(omp_get_ancestor_thread_num(0), 0, 'omp_get_ancestor_thread_num(0) outside')
  call check_eq(omp_get_team_size(0), 1, 'omp_get_team_size(0) outside')
  call check_eq(omp_get_ancestor_thread_num(1), -1, 'omp_get_ancestor_thread_num(1) outside')
  levels_seen = 0
  !$omp parallel num_threads(2) reduction(+:levels_seen)
  !$omp parallel num_threads(2) reduction(+:levels_seen)
  call check_eq(omp_get_level(), 2, 'omp_get_level, nested')
  call check_eq(omp_get_team_size(1), 2, 'omp_get_team_size(1), nested')
  call check_eq(omp_get_team_size(2), 2, 'omp_get_team_size(2), nested')
  call check_eq(omp_get_team_size(3), -1, 'omp_get_team_size(3), nested')
  call check_eq(omp_get_ancestor_thread_num(2), omp_get_thread_num(), 'ancestor at own level')
  call check(omp_get_ancestor_thread_num(1) < 2, 'ancestor(1) < 2')
  call check(omp_get_ancestor_thread_num(1) >= 0, 'ancestor(1) >= 0')
  levels_seen = levels_seen + omp_get_active_level()
  !$omp end parallel
  !$omp end parallel
  call check_eq(levels_seen, 8, 'sum of omp_get_active_level over 4 nested members')
  call omp_set_max_active_levels(1)

  ! ---- tasks ----
  call check(.not. omp_in_final(), 'omp_in_final outside')
  n = 0
  !$omp task final(.true.) shared(n)
  if (omp_in_final()) n = 1
  !$omp end task
  !$omp taskwait
  call check_eq(n, 1, 'omp_in_final in a final task')
  call check_eq(omp_get_max_task_priority(), 0, 'omp_get_max_task_priority')

  ! ---- cancellation, binding, devices, teams ----
  ! transfer: flang 19's omp_lib declares omp_get_cancellation integer(4)
  call check(.not. transfer(omp_get_cancellation(), .true._4), 'omp_get_cancellation')
  call check_eq(omp_get_proc_bind(), omp_proc_bind_false, 'omp_get_proc_bind')
  call check(omp_is_initial_device(), 'omp_is_initial_device')
  call check_eq(omp_get_initial_device(), omp_get_num_devices(), 'omp_get_initial_device')
  call check_eq(omp_get_device_num(), omp_get_initial_device(), 'omp_get_device_num')
  call omp_set_default_device(0)
  call check_eq(omp_get_default_device(), 0, 'omp_get_default_device')
  call check_eq(omp_get_num_teams(), 1, 'omp_get_num_teams')
  call check_eq(omp_get_team_num(), 0, 'omp_get_team_num')
  call omp_set_num_teams(3)
  call check_eq(omp_get_max_teams(), 3, 'omp_set_num_teams(3)')
  call omp_set_teams_thread_limit(2)
  call check_eq(omp_get_teams_thread_limit(), 2, 'omp_set_teams_thread_limit(2)')

  call allocators()
  call omp_display_env(.false.)

  ! ---- pause, then a region still works (twice: a second pause in a row
  ! may fail, and does on libomp) ----
  call check_eq(omp_pause_resource_all(omp_pause_soft), 0, 'omp_pause_resource_all(omp_pause_soft)')
  call region_after('omp_pause_resource_all')
  call check_eq(omp_pause_resource(omp_pause_soft, omp_get_initial_device()), 0, 'omp_pause_resource')
  call region_after('omp_pause_resource')

  write (facts, '(a,i0,a,i0)') 'threads ', t, ' in_parallel ', in_par
  call summary(trim(facts) // ' levels ' // str(int(levels_seen, 8)) // ' ok')

contains

  subroutine region_after(what)
    character(len=*), intent(in) :: what
    integer :: members
    members = 0
    !$omp parallel reduction(+:members)
    members = members + 1
    !$omp end parallel
    call check_eq(members, t, 'a region after ' // what)
  end subroutine

  subroutine allocators()
    type(omp_alloctrait) :: traits(2)
    integer(omp_allocator_handle_kind) :: aligned
    type(c_ptr) :: p
    integer(c_intptr_t) :: address
    traits(1) = omp_alloctrait(omp_atk_alignment, 256)
    traits(2) = omp_alloctrait(omp_atk_fallback, omp_atv_null_fb)
    aligned = omp_init_allocator(omp_default_mem_space, 2, traits)
    call check(aligned /= omp_null_allocator, 'omp_init_allocator with traits')
    call check_eq(omp_get_default_allocator(), omp_default_mem_alloc, 'omp_get_default_allocator at start')
    call omp_set_default_allocator(aligned)
    call check(omp_get_default_allocator() == aligned, 'omp_set_default_allocator')
    p = omp_alloc(1000_c_size_t, omp_null_allocator)
    call check(c_associated(p), 'omp_alloc on the default allocator')
    address = transfer(p, address)
    call check_eq(int(mod(address, 256_c_intptr_t), 8), 0_8, 'omp_alloc honours the alignment trait')
    call omp_free(p, omp_null_allocator)
    call omp_set_default_allocator(omp_default_mem_alloc)
    call omp_destroy_allocator(aligned)
  end subroutine

end program f_api
