/* Second names of the Fortran entry points (platform/second_names.inc says
 * why each is a tail jump of its own):
 *  - every one as NAME@VERSION, LLVM libomp's node, where libomp exports
 *    its Fortran names too: flang-built programs bind the character
 *    routines and omp_init_allocator_ there (their handles and strings are
 *    the same as gfortran's: fortran.h).  omp_fulfill_event_@VERSION takes
 *    LLVM's event handle, so it goes to the kmp adapter's routine;
 *  - the lock routines as NAME@OMP_1.0 too, which binaries of gcc before
 *    4.4 ask for (libgomp keeps OpenMP 2.5 locks there).  Fortran handles
 *    hide the C layout, so the OpenMP 3.0 routines serve them: a 2.5 nest
 *    lock is owned by a thread, a 3.0 one by a task, and before 3.0 a
 *    thread ran one task at a time.
 * The test omp/exports checks that every Fortran name has its twins. */

#include "platform/second_names.inc"

.macro AT_VERSION name
    SECOND_NAME muster_fortran_\name, \name, \name, VERSION
.endm

.macro AT_OMP_1_0 name
    SECOND_NAME muster_fortran_v1_\name, \name, \name, OMP_1.0
.endm

    .text
AT_VERSION omp_capture_affinity_
AT_VERSION omp_destroy_allocator_
AT_VERSION omp_destroy_lock_
AT_VERSION omp_destroy_nest_lock_
AT_VERSION omp_display_env_
AT_VERSION omp_display_env_8_
AT_VERSION omp_get_active_level_
AT_VERSION omp_get_affinity_format_
AT_VERSION omp_get_ancestor_thread_num_
AT_VERSION omp_get_ancestor_thread_num_8_
AT_VERSION omp_get_cancellation_
AT_VERSION omp_get_default_allocator_
AT_VERSION omp_get_default_device_
AT_VERSION omp_get_device_num_
AT_VERSION omp_get_dynamic_
AT_VERSION omp_get_initial_device_
AT_VERSION omp_get_level_
AT_VERSION omp_get_max_active_levels_
AT_VERSION omp_get_max_task_priority_
AT_VERSION omp_get_max_teams_
AT_VERSION omp_get_max_threads_
AT_VERSION omp_get_nested_
AT_VERSION omp_get_num_devices_
AT_VERSION omp_get_num_places_
AT_VERSION omp_get_num_procs_
AT_VERSION omp_get_num_teams_
AT_VERSION omp_get_num_threads_
AT_VERSION omp_get_partition_num_places_
AT_VERSION omp_get_partition_place_nums_
AT_VERSION omp_get_partition_place_nums_8_
AT_VERSION omp_get_place_num_
AT_VERSION omp_get_place_num_procs_
AT_VERSION omp_get_place_num_procs_8_
AT_VERSION omp_get_place_proc_ids_
AT_VERSION omp_get_place_proc_ids_8_
AT_VERSION omp_get_proc_bind_
AT_VERSION omp_get_schedule_
AT_VERSION omp_get_schedule_8_
AT_VERSION omp_get_supported_active_levels_
AT_VERSION omp_get_team_num_
AT_VERSION omp_get_team_size_
AT_VERSION omp_get_team_size_8_
AT_VERSION omp_get_teams_thread_limit_
AT_VERSION omp_get_thread_limit_
AT_VERSION omp_get_thread_num_
AT_VERSION omp_get_wtick_
AT_VERSION omp_get_wtime_
AT_VERSION omp_in_final_
AT_VERSION omp_in_parallel_
AT_VERSION omp_init_allocator_
AT_VERSION omp_init_allocator_8_
AT_VERSION omp_init_lock_
AT_VERSION omp_init_lock_with_hint_
AT_VERSION omp_init_nest_lock_
AT_VERSION omp_init_nest_lock_with_hint_
AT_VERSION omp_is_initial_device_
AT_VERSION omp_pause_resource_
AT_VERSION omp_pause_resource_all_
AT_VERSION omp_set_affinity_format_
AT_VERSION omp_set_default_allocator_
AT_VERSION omp_set_default_device_
AT_VERSION omp_set_default_device_8_
AT_VERSION omp_set_dynamic_
AT_VERSION omp_set_dynamic_8_
AT_VERSION omp_set_lock_
AT_VERSION omp_set_max_active_levels_
AT_VERSION omp_set_max_active_levels_8_
AT_VERSION omp_set_nest_lock_
AT_VERSION omp_set_nested_
AT_VERSION omp_set_nested_8_
AT_VERSION omp_set_num_teams_
AT_VERSION omp_set_num_teams_8_
AT_VERSION omp_set_num_threads_
AT_VERSION omp_set_num_threads_8_
AT_VERSION omp_set_schedule_
AT_VERSION omp_set_schedule_8_
AT_VERSION omp_set_teams_thread_limit_
AT_VERSION omp_set_teams_thread_limit_8_
AT_VERSION omp_test_lock_
AT_VERSION omp_test_nest_lock_
AT_VERSION omp_unset_lock_
AT_VERSION omp_unset_nest_lock_
SECOND_NAME muster_fortran_omp_fulfill_event_, omp_fulfill_event_, muster_kmp_fulfill_event, VERSION

AT_OMP_1_0 omp_init_lock_
AT_OMP_1_0 omp_init_nest_lock_
AT_OMP_1_0 omp_destroy_lock_
AT_OMP_1_0 omp_destroy_nest_lock_
AT_OMP_1_0 omp_set_lock_
AT_OMP_1_0 omp_set_nest_lock_
AT_OMP_1_0 omp_unset_lock_
AT_OMP_1_0 omp_unset_nest_lock_
AT_OMP_1_0 omp_test_lock_
AT_OMP_1_0 omp_test_nest_lock_

    .section .note.GNU-stack, "", %progbits
