! The place routines from Fortran, arrays among them (the program runs
! itself again with OMP_PLACES set to one place per CPU it may use, at most
! two, and OMP_PROC_BIND=close): omp_get_num_places,
! omp_get_place_num_procs, omp_get_place_proc_ids (an array),
! omp_get_place_num, omp_get_partition_num_places and
! omp_get_partition_place_nums (an array) outside and inside a team;
! out-of-range place numbers.  With -fdefault-integer-8 the _8_ forms.
program f_places
  use omp_lib
  use fcorpus
  implicit none
  integer :: cpus(2), nplaces, p, t, ids(4), parts(4), bad
  character(len=40) :: setting

  cpus(1) = allowed_cpu(0)
  cpus(2) = allowed_cpu(1)
  nplaces = merge(2, 1, cpus(2) >= 0)
  if (nplaces == 2) then
    write (setting, '(a,i0,a,i0,a)') '{', cpus(1), '},{', cpus(2), '}'
  else
    write (setting, '(a,i0,a)') '{', cpus(1), '}'
  end if
  call reexec_with('OMP_PLACES', trim(setting))
  call reexec_with('OMP_PROC_BIND', 'close')
  call corpus_begin('f_places')
  t = corpus_threads()

  call check_eq(omp_get_num_places(), nplaces, 'omp_get_num_places')
  call check_eq(omp_get_proc_bind(), omp_proc_bind_close, 'omp_get_proc_bind with OMP_PROC_BIND=close')
  do p = 0, nplaces - 1
    call check_eq(omp_get_place_num_procs(p), 1, 'omp_get_place_num_procs')
    ids = -7
    call omp_get_place_proc_ids(p, ids)
    call check_eq(ids(1), cpus(p + 1), 'omp_get_place_proc_ids fills the array')
    call check_eq(ids(2), -7, 'omp_get_place_proc_ids writes no more than the place has')
  end do
  call check_eq(omp_get_place_num_procs(nplaces), 0, 'omp_get_place_num_procs past the last place')
  call check_eq(omp_get_place_num_procs(-1), 0, 'omp_get_place_num_procs(-1)')
  call check_eq(omp_get_partition_num_places(), nplaces, 'the initial partition')
  parts = -7
  call omp_get_partition_place_nums(parts)
  do p = 1, nplaces
    call check_eq(parts(p), p - 1, 'omp_get_partition_place_nums outside a team')
  end do
  call check_eq(parts(nplaces + 1), -7, 'omp_get_partition_place_nums writes no more than the partition')

  bad = 0
  !$omp parallel reduction(+:bad) private(parts, p)
  block
    integer :: mine, count
    mine = omp_get_place_num()
    if (mine < 0 .or. mine >= nplaces) bad = bad + 1
    count = omp_get_partition_num_places()
    if (count < 1 .or. count > nplaces) bad = bad + 1
    parts = -7
    call omp_get_partition_place_nums(parts)
    do p = 1, count
      if (parts(p) < 0 .or. parts(p) >= nplaces) bad = bad + 1
    end do
    if (count < 4 .and. parts(count + 1) /= -7) bad = bad + 1
  end block
  !$omp end parallel
  call check_eq(bad, 0, 'members out of the place list or their partition')
  call summary('threads ' // str(int(t, 8)) // ' ok')
end program f_places
