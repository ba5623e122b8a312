! The routines with character arguments, through gfortran's hidden lengths:
! omp_set_affinity_format, omp_get_affinity_format (the text blank-padded
! to the variable, or cut to it, and its whole length returned),
! omp_capture_affinity (the same, with the set format, a given one and one
! longer than 256 characters, in a team and outside), omp_display_affinity.
program f_text
  use omp_lib
  use fcorpus
  implicit none
  character(len=40) :: buf
  integer :: length, t, streams

  call corpus_begin('f_text')
  t = corpus_threads()
  call outside_a_team()
  call in_a_team()
  ! Affinity lines go to one stream, the one the runtime the program was
  ! built for writes them on: libgomp's stderr (gfortran), libomp's
  ! stdout (flang).  Captured, so the summary stays the one stdout line.
  call capture_begin()
  call omp_display_affinity('display %n')
  streams = capture_end('display 0')
  call check(streams == 1 .or. streams == 2, 'omp_display_affinity wrote its line to one stream')
  call capture_begin()
  call omp_display_affinity('')
  call check(capture_end('') == streams, 'omp_display_affinity with the set format on the same stream')
  call omp_set_affinity_format('')
  length = omp_get_affinity_format(buf)
  call check_eq(length, 0, 'omp_set_affinity_format with an empty string')
  call summary('threads ' // str(int(t, 8)) // ' ok')

contains

  ! (Contained procedures, with the team apart: flang 19 cannot lower these
  ! substring comparisons in a procedure that also has a parallel region.)
  subroutine outside_a_team()
    character(len=4) :: small
    character(len=300) :: long
    call omp_set_affinity_format('T%0.3n/%N')
    length = omp_get_affinity_format(buf)
    call check_eq(length, 9, 'omp_get_affinity_format length')
    if (buf /= 'T%0.3n/%N') call fail('omp_get_affinity_format text, blank-padded: "' // buf // '"')
    length = omp_get_affinity_format(small)
    call check_eq(length, 9, 'omp_get_affinity_format length into a short buffer')
    if (small /= 'T%0.') call fail('omp_get_affinity_format cut to the buffer: "' // small // '"')
    length = omp_capture_affinity(buf, '')
    call check_eq(length, 6, 'omp_capture_affinity with the set format')
    if (buf /= 'T000/1') call fail('omp_capture_affinity text: "' // trim(buf) // '"')
    length = omp_capture_affinity(small, 'id=%n of %N!')
    call check_eq(length, 10, 'omp_capture_affinity length into a short buffer')
    if (small /= 'id=0') call fail('omp_capture_affinity cut: "' // small // '"')
    length = omp_capture_affinity(long, repeat('x', 250) // '%n')
    call check_eq(length, 251, 'omp_capture_affinity of a long format')
    if (long(250:251) /= 'x0' .or. long(252:) /= '') call fail('a long capture, blank-padded')
  end subroutine

  subroutine in_a_team()
    character(len=8) :: mine
    integer :: team_ok
    team_ok = 0
    !$omp parallel private(mine, length) reduction(+:team_ok)
    length = omp_capture_affinity(mine, '%n/%N')
    ! Digits by hand: str() here would race (fcorpus.f90 says why).
    if (mine == achar(iachar('0') + omp_get_thread_num()) // '/' // achar(iachar('0') + omp_get_num_threads())) &
      team_ok = team_ok + 1
    !$omp end parallel
    call check_eq(team_ok, t, 'members whose omp_capture_affinity shows %n/%N')
  end subroutine

end program f_text
