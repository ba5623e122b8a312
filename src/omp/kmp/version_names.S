/* Second names at LLVM libomp's version node VERSION, each a tail jump
 * to our definition:
 *  - every omp_* function as NAME@VERSION, which every clang-built binary
 *    asks for (LLVM's libomp exports its API at VERSION as well as at
 *    gcc's OMP_x nodes).  Not the nest locks, whose omp_nest_lock_t
 *    differs in size (lock.c), nor omp_fulfill_event, whose handle differs
 *    (task.c), nor omp_target_*, which LLVM keeps in libomptarget;
 *  - every GOMP_* as NAME@VERSION: what a gcc-compiled object linked
 *    against libomp (which exports GOMP_* at VERSION too) asks for, and
 *    what a program mixing gcc- and clang-built objects gets;
 *  - ompc_*: the names LLVM's omp.h #defines the affinity functions to.
 * A tail jump each, with an address of its own: GNU ld 2.40 keeps only one
 * of two versions of a name that share an address, so the alias-and-.symver
 * trick libomp uses would lose the OMP_x and GOMP_x names gcc binaries
 * need.  The test omp/exports checks that every omp_* and GOMP_* has its
 * VERSION twin. */

#if defined(__x86_64__)
#define TAIL_JUMP(target) jmp target@PLT
#elif defined(__aarch64__)
#define TAIL_JUMP(target) b target
#else
#error "version_names.S: add this architecture's tail jump"
#endif

/* name@VERSION, jumping to name. */
.macro FORWARD name
    .globl muster_kmp_\name
    .type muster_kmp_\name, %function
    .p2align 4
muster_kmp_\name:
    TAIL_JUMP(\name)
    .size muster_kmp_\name, . - muster_kmp_\name
    .symver muster_kmp_\name, \name@VERSION
.endm

/* name (listed at VERSION by the version script), jumping to target. */
.macro ALIAS name, target
    .globl \name
    .type \name, %function
    .p2align 4
\name:
    TAIL_JUMP(\target)
    .size \name, . - \name
.endm

    .text
FORWARD omp_aligned_alloc
FORWARD omp_aligned_calloc
FORWARD omp_alloc
FORWARD omp_calloc
FORWARD omp_capture_affinity
FORWARD omp_destroy_allocator
FORWARD omp_destroy_lock
FORWARD omp_display_affinity
FORWARD omp_display_env
FORWARD omp_free
FORWARD omp_get_active_level
FORWARD omp_get_affinity_format
FORWARD omp_get_ancestor_thread_num
FORWARD omp_get_cancellation
FORWARD omp_get_default_allocator
FORWARD omp_get_default_device
FORWARD omp_get_device_num
FORWARD omp_get_dynamic
FORWARD omp_get_initial_device
FORWARD omp_get_level
FORWARD omp_get_max_active_levels
FORWARD omp_get_max_task_priority
FORWARD omp_get_max_teams
FORWARD omp_get_max_threads
FORWARD omp_get_nested
FORWARD omp_get_num_devices
FORWARD omp_get_num_places
FORWARD omp_get_num_procs
FORWARD omp_get_num_teams
FORWARD omp_get_num_threads
FORWARD omp_get_partition_num_places
FORWARD omp_get_partition_place_nums
FORWARD omp_get_place_num
FORWARD omp_get_place_num_procs
FORWARD omp_get_place_proc_ids
FORWARD omp_get_proc_bind
FORWARD omp_get_schedule
FORWARD omp_get_supported_active_levels
FORWARD omp_get_team_num
FORWARD omp_get_team_size
FORWARD omp_get_teams_thread_limit
FORWARD omp_get_thread_limit
FORWARD omp_get_thread_num
FORWARD omp_get_wtick
FORWARD omp_get_wtime
FORWARD omp_in_final
FORWARD omp_in_parallel
FORWARD omp_init_allocator
FORWARD omp_init_lock
FORWARD omp_init_lock_with_hint
FORWARD omp_is_initial_device
FORWARD omp_pause_resource
FORWARD omp_pause_resource_all
FORWARD omp_realloc
FORWARD omp_set_affinity_format
FORWARD omp_set_default_allocator
FORWARD omp_set_default_device
FORWARD omp_set_dynamic
FORWARD omp_set_lock
FORWARD omp_set_max_active_levels
FORWARD omp_set_nested
FORWARD omp_set_num_teams
FORWARD omp_set_num_threads
FORWARD omp_set_schedule
FORWARD omp_set_teams_thread_limit
FORWARD omp_test_lock
FORWARD omp_unset_lock

FORWARD GOMP_alloc
FORWARD GOMP_atomic_end
FORWARD GOMP_atomic_start
FORWARD GOMP_barrier
FORWARD GOMP_barrier_cancel
FORWARD GOMP_cancel
FORWARD GOMP_cancellation_point
FORWARD GOMP_critical_end
FORWARD GOMP_critical_name_end
FORWARD GOMP_critical_name_start
FORWARD GOMP_critical_start
FORWARD GOMP_doacross_post
FORWARD GOMP_doacross_ull_post
FORWARD GOMP_doacross_ull_wait
FORWARD GOMP_doacross_wait
FORWARD GOMP_error
FORWARD GOMP_free
FORWARD GOMP_loop_doacross_dynamic_start
FORWARD GOMP_loop_doacross_guided_start
FORWARD GOMP_loop_doacross_runtime_start
FORWARD GOMP_loop_doacross_start
FORWARD GOMP_loop_doacross_static_start
FORWARD GOMP_loop_dynamic_next
FORWARD GOMP_loop_dynamic_start
FORWARD GOMP_loop_end
FORWARD GOMP_loop_end_cancel
FORWARD GOMP_loop_end_nowait
FORWARD GOMP_loop_guided_next
FORWARD GOMP_loop_guided_start
FORWARD GOMP_loop_maybe_nonmonotonic_runtime_next
FORWARD GOMP_loop_maybe_nonmonotonic_runtime_start
FORWARD GOMP_loop_nonmonotonic_dynamic_next
FORWARD GOMP_loop_nonmonotonic_dynamic_start
FORWARD GOMP_loop_nonmonotonic_guided_next
FORWARD GOMP_loop_nonmonotonic_guided_start
FORWARD GOMP_loop_nonmonotonic_runtime_next
FORWARD GOMP_loop_nonmonotonic_runtime_start
FORWARD GOMP_loop_ordered_dynamic_next
FORWARD GOMP_loop_ordered_dynamic_start
FORWARD GOMP_loop_ordered_guided_next
FORWARD GOMP_loop_ordered_guided_start
FORWARD GOMP_loop_ordered_runtime_next
FORWARD GOMP_loop_ordered_runtime_start
FORWARD GOMP_loop_ordered_start
FORWARD GOMP_loop_ordered_static_next
FORWARD GOMP_loop_ordered_static_start
FORWARD GOMP_loop_runtime_next
FORWARD GOMP_loop_runtime_start
FORWARD GOMP_loop_start
FORWARD GOMP_loop_static_next
FORWARD GOMP_loop_static_start
FORWARD GOMP_loop_ull_doacross_dynamic_start
FORWARD GOMP_loop_ull_doacross_guided_start
FORWARD GOMP_loop_ull_doacross_runtime_start
FORWARD GOMP_loop_ull_doacross_start
FORWARD GOMP_loop_ull_doacross_static_start
FORWARD GOMP_loop_ull_dynamic_next
FORWARD GOMP_loop_ull_dynamic_start
FORWARD GOMP_loop_ull_guided_next
FORWARD GOMP_loop_ull_guided_start
FORWARD GOMP_loop_ull_maybe_nonmonotonic_runtime_next
FORWARD GOMP_loop_ull_maybe_nonmonotonic_runtime_start
FORWARD GOMP_loop_ull_nonmonotonic_dynamic_next
FORWARD GOMP_loop_ull_nonmonotonic_dynamic_start
FORWARD GOMP_loop_ull_nonmonotonic_guided_next
FORWARD GOMP_loop_ull_nonmonotonic_guided_start
FORWARD GOMP_loop_ull_nonmonotonic_runtime_next
FORWARD GOMP_loop_ull_nonmonotonic_runtime_start
FORWARD GOMP_loop_ull_ordered_dynamic_next
FORWARD GOMP_loop_ull_ordered_dynamic_start
FORWARD GOMP_loop_ull_ordered_guided_next
FORWARD GOMP_loop_ull_ordered_guided_start
FORWARD GOMP_loop_ull_ordered_runtime_next
FORWARD GOMP_loop_ull_ordered_runtime_start
FORWARD GOMP_loop_ull_ordered_start
FORWARD GOMP_loop_ull_ordered_static_next
FORWARD GOMP_loop_ull_ordered_static_start
FORWARD GOMP_loop_ull_runtime_next
FORWARD GOMP_loop_ull_runtime_start
FORWARD GOMP_loop_ull_start
FORWARD GOMP_loop_ull_static_next
FORWARD GOMP_loop_ull_static_start
FORWARD GOMP_offload_register
FORWARD GOMP_offload_register_ver
FORWARD GOMP_offload_unregister
FORWARD GOMP_offload_unregister_ver
FORWARD GOMP_ordered_end
FORWARD GOMP_ordered_start
FORWARD GOMP_parallel
FORWARD GOMP_parallel_end
FORWARD GOMP_parallel_loop_dynamic
FORWARD GOMP_parallel_loop_dynamic_start
FORWARD GOMP_parallel_loop_guided
FORWARD GOMP_parallel_loop_guided_start
FORWARD GOMP_parallel_loop_maybe_nonmonotonic_runtime
FORWARD GOMP_parallel_loop_nonmonotonic_dynamic
FORWARD GOMP_parallel_loop_nonmonotonic_guided
FORWARD GOMP_parallel_loop_nonmonotonic_runtime
FORWARD GOMP_parallel_loop_runtime
FORWARD GOMP_parallel_loop_runtime_start
FORWARD GOMP_parallel_loop_static
FORWARD GOMP_parallel_loop_static_start
FORWARD GOMP_parallel_reductions
FORWARD GOMP_parallel_sections
FORWARD GOMP_parallel_sections_start
FORWARD GOMP_parallel_start
FORWARD GOMP_scope_start
FORWARD GOMP_sections2_start
FORWARD GOMP_sections_end
FORWARD GOMP_sections_end_cancel
FORWARD GOMP_sections_end_nowait
FORWARD GOMP_sections_next
FORWARD GOMP_sections_start
FORWARD GOMP_single_copy_end
FORWARD GOMP_single_copy_start
FORWARD GOMP_single_start
FORWARD GOMP_target
FORWARD GOMP_target_data
FORWARD GOMP_target_data_ext
FORWARD GOMP_target_end_data
FORWARD GOMP_target_enter_exit_data
FORWARD GOMP_target_ext
FORWARD GOMP_target_update
FORWARD GOMP_target_update_ext
FORWARD GOMP_task
FORWARD GOMP_task_reduction_remap
FORWARD GOMP_taskgroup_end
FORWARD GOMP_taskgroup_reduction_register
FORWARD GOMP_taskgroup_reduction_unregister
FORWARD GOMP_taskgroup_start
FORWARD GOMP_taskloop
FORWARD GOMP_taskloop_ull
FORWARD GOMP_taskwait
FORWARD GOMP_taskwait_depend
FORWARD GOMP_taskyield
FORWARD GOMP_teams
FORWARD GOMP_teams4
FORWARD GOMP_teams_reg
FORWARD GOMP_warning
FORWARD GOMP_workshare_task_reduction_unregister

ALIAS ompc_set_affinity_format, omp_set_affinity_format
ALIAS ompc_get_affinity_format, omp_get_affinity_format
ALIAS ompc_display_affinity, omp_display_affinity
ALIAS ompc_capture_affinity, omp_capture_affinity

    .section .note.GNU-stack, "", %progbits
