! Nested parallel regions from Fortran: two and three levels with
! max-active-levels 1, 2 and 3 (inner teams of one when the level is
! inactive); omp_get_level, omp_get_active_level, ancestors and team sizes
! at every level; num_threads on inner regions; a reduction and a
! worksharing loop inside the inner teams; team sizes that change from
! round to round.
program f_nested
  use omp_lib
  use fcorpus
  implicit none
  integer :: t, outer, inner, levels, round, total, bodies, inner_sizes, team_sum
  integer :: active2, size3
  integer, parameter :: n = 101

  call corpus_begin('f_nested')
  t = corpus_threads()
  call omp_set_dynamic(.false.)
  do levels = 1, 3
    call omp_set_max_active_levels(levels)
    do round = 1, 6
      outer = mod(round, 3) + 2
      inner = mod(round + 1, 3) + 1
      ! Level 2 is active when allowed and its team has more than one
      ! thread; level 3 then gets its 2 threads if a level is left.
      active2 = 1 + merge(1, 0, levels >= 2 .and. inner > 1)
      size3 = merge(2, 1, active2 < levels)
      total = 0
      bodies = 0
      inner_sizes = 0
      team_sum = 0
      !$omp parallel num_threads(outer) reduction(+:total, bodies, inner_sizes) firstprivate(team_sum)
      call check_eq(omp_get_level(), 1, 'omp_get_level at level 1')
      call check_eq(omp_get_active_level(), 1, 'omp_get_active_level at level 1')
      !$omp parallel num_threads(inner) reduction(+:total, bodies, inner_sizes) shared(team_sum)
      block
        integer :: i
        call check_eq(omp_get_level(), 2, 'omp_get_level at level 2')
        call check_eq(omp_get_active_level(), active2, 'omp_get_active_level at level 2')
        call check_eq(omp_get_team_size(1), outer, 'omp_get_team_size(1) at level 2')
        call check_eq(omp_get_team_size(2), merge(inner, 1, levels >= 2), 'omp_get_team_size(2)')
        call check_eq(omp_get_ancestor_thread_num(2), omp_get_thread_num(), 'ancestor(2) is me')
        if (omp_get_thread_num() == 0) inner_sizes = inner_sizes + omp_get_num_threads()
        !$omp single
        team_sum = 0
        !$omp end single
        !$omp do reduction(+:team_sum)
        do i = 1, n
          team_sum = team_sum + i
        end do
        !$omp end do
        if (team_sum /= n * (n + 1) / 2) call fail('a worksharing loop in an inner team')
        bodies = bodies + 1
        !$omp parallel num_threads(2) reduction(+:total)
        call check_eq(omp_get_level(), 3, 'omp_get_level at level 3')
        call check_eq(omp_get_team_size(3), size3, 'omp_get_team_size(3)')
        total = total + 1
        !$omp end parallel
      end block
      !$omp end parallel
      !$omp end parallel
      call check_eq(bodies, outer * merge(inner, 1, levels >= 2), 'inner bodies')
      call check_eq(inner_sizes, outer * merge(inner, 1, levels >= 2), 'inner team sizes')
      call check_eq(total, bodies * size3, 'level-3 bodies')
    end do
  end do
  call omp_set_max_active_levels(1)
  call summary('threads ' // str(int(t, 8)) // ' last bodies ' // str(int(bodies, 8)) // ' ok')
end program f_nested
