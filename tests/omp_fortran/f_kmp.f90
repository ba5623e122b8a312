! libomp's own API (kmp_*) through flang's omp_lib, which declares it
! (bind(c), by value): flang-built only, compared with LLVM's libomp 19
! (gfortran's omp_lib has no kmp_* routines).  Blocktime and library modes
! set and read back, regions run under each; the stack size set for new
! threads; kmp_malloc, kmp_aligned_malloc, kmp_calloc, kmp_realloc and
! kmp_free; affinity masks made, filled from the thread's own binding and
! applied.  Only what the program
! set goes into the summary: each runtime's defaults are its own.
program f_kmp
  use omp_lib
  use fcorpus
  use, intrinsic :: iso_c_binding
  implicit none
  integer :: t, i, proc, found, total
  integer(kmp_pointer_kind) :: p
  integer(kmp_size_t_kind) :: stack
  integer(kmp_affinity_mask_kind) :: mask
  integer, pointer :: words(:)
  character(len=200) :: facts
  character(len=16) :: policy
  logical :: active

  call corpus_begin('f_kmp')
  t = corpus_threads()
  ! libomp takes a stack size only before its first parallel region (muster
  ! for every thread it starts later): set here, both read it back.
  stack = 4_kmp_size_t_kind * 1024 * 1024
  call kmp_set_stacksize_s(stack)
  call check(kmp_get_stacksize_s() == stack, 'stack size read back after kmp_set_stacksize_s(4 MiB)')
  ! Under OMP_WAIT_POLICY=active libomp's kmp_get_blocktime answers
  ! "infinite" whatever was set (its default, checked first): the values set
  ! are compared only under the other policies.
  call get_environment_variable('OMP_WAIT_POLICY', policy)
  active = policy == 'active' .or. policy == 'ACTIVE'

  ! ---- blocktime and library modes, and teams that wait under each ----
  call kmp_set_blocktime(0)
  if (.not. active) call check_eq(kmp_get_blocktime(), 0, 'blocktime after kmp_set_blocktime(0)')
  total = 0
  do i = 1, 3
    !$omp parallel reduction(+:total)
    total = total + 1
    !$omp end parallel
    !$omp barrier
  end do
  call check_eq(total, 3 * t, 'members of three regions with blocktime 0')
  call kmp_set_blocktime(30)
  if (.not. active) call check_eq(kmp_get_blocktime(), 30, 'blocktime after kmp_set_blocktime(30)')
  call kmp_set_library_turnaround()
  call check_eq(kmp_get_library(), 2, 'library after kmp_set_library_turnaround')
  total = 0
  !$omp parallel reduction(+:total)
  total = total + 1
  !$omp end parallel
  call check_eq(total, t, 'members of a region in turnaround mode')
  call kmp_set_library_throughput()
  call check_eq(kmp_get_library(), 3, 'library after kmp_set_library_throughput')

  ! ---- memory ----
  p = kmp_aligned_malloc(1024_kmp_size_t_kind, 256_kmp_size_t_kind)
  call check(p /= 0 .and. mod(p, 256_kmp_pointer_kind) == 0, 'kmp_aligned_malloc(1024, 256) aligned')
  call c_f_pointer(transfer(p, c_null_ptr), words, [256])
  words = 7
  call check_eq(sum(words), 7 * 256, 'kmp_aligned_malloc memory written and read')
  call kmp_free(p)
  p = kmp_calloc(64_kmp_size_t_kind, 4_kmp_size_t_kind)
  call c_f_pointer(transfer(p, c_null_ptr), words, [64])
  call check_eq(sum(words), 0, 'kmp_calloc zeroes')
  p = kmp_realloc(p, 1024_kmp_size_t_kind)
  call check(p /= 0, 'kmp_realloc')
  call kmp_free(p)
  p = kmp_malloc(100_kmp_size_t_kind)
  call check(p /= 0, 'kmp_malloc')
  call kmp_free(p)

  ! ---- affinity masks ----
  call kmp_create_affinity_mask(mask)
  call check_eq(kmp_get_affinity(mask), 0, 'kmp_get_affinity')
  found = -1
  do proc = 0, kmp_get_affinity_max_proc() - 1
    if (kmp_get_affinity_mask_proc(proc, mask) == 1) then
      found = proc
      exit
    end if
  end do
  call check(found >= 0, 'a CPU in the thread''s own mask')
  call check_eq(kmp_set_affinity(mask), 0, 'kmp_set_affinity to the thread''s own mask')
  call check_eq(kmp_unset_affinity_mask_proc(found, mask), 0, 'kmp_unset_affinity_mask_proc')
  call check_eq(kmp_get_affinity_mask_proc(found, mask), 0, 'a CPU cleared from a mask')
  call check_eq(kmp_set_affinity_mask_proc(found, mask), 0, 'kmp_set_affinity_mask_proc')
  call check_eq(kmp_get_affinity_mask_proc(found, mask), 1, 'a CPU set in a mask')
  call check_eq(kmp_set_affinity_mask_proc(-1, mask), -1, 'CPU -1 refused')
  call kmp_destroy_affinity_mask(mask)

  write (facts, '(a)') 'blocktime=0,30 library=2,3 stack=4MiB memory masks ok'
  call summary(trim(facts))
end program f_kmp
