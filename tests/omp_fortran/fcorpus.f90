! The Fortran corpus's helpers (the C half: fcorpus.c).  Every program of
! tests/omp_fortran/ checks its results against a serial computation and,
! at the first mismatch, writes "FAIL <program>: <what>" on
! stderr and exits 1; on success it writes one line on stdout,
!     summary <program>: <deterministic facts>
! which run_corpus.py compares between runtimes, thread counts held equal.
! Built twice, the second time with -fdefault-integer-8: the interfaces to
! C therefore name their kinds, and check_eq takes both integer kinds.
module fcorpus
  use, intrinsic :: iso_c_binding
  implicit none
  private
  public :: corpus_begin, fail, check, check_eq, check_near, summary, str, corpus_seed, corpus_rand, &
            corpus_delay, reexec_with, corpus_threads, runtime_entry, allowed_cpu, capture_begin, capture_end

  interface
    subroutine c_begin(name, length) bind(c, name='fcorpus_begin')
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: length
    end subroutine
    subroutine c_fail(text, length) bind(c, name='fcorpus_fail')
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: text(*)
      integer(c_int), value :: length
    end subroutine
    subroutine c_summary(text, length) bind(c, name='fcorpus_summary')
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: text(*)
      integer(c_int), value :: length
    end subroutine
    function c_seed(a, b) bind(c, name='fcorpus_seed')
      import :: c_int, c_int64_t
      integer(c_int), value :: a, b
      integer(c_int64_t) :: c_seed
    end function
    function c_rand(state) bind(c, name='fcorpus_rand')
      import :: c_int64_t
      integer(c_int64_t), intent(inout) :: state
      integer(c_int64_t) :: c_rand
    end function
    subroutine c_delay(state, max_us) bind(c, name='fcorpus_delay')
      import :: c_int, c_int64_t
      integer(c_int64_t), intent(inout) :: state
      integer(c_int), value :: max_us
    end subroutine
    subroutine c_reexec_with(name, name_length, value, value_length) bind(c, name='fcorpus_reexec_with')
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: name(*), value(*)
      integer(c_int), value :: name_length, value_length
    end subroutine
    function c_entry(name, name_length, version, version_length) bind(c, name='fcorpus_entry')
      import :: c_char, c_int, c_ptr
      character(kind=c_char), intent(in) :: name(*), version(*)
      integer(c_int), value :: name_length, version_length
      type(c_ptr) :: c_entry
    end function
    subroutine c_capture_begin() bind(c, name='fcorpus_capture_begin')
    end subroutine
    function c_capture_end(needle, length) bind(c, name='fcorpus_capture_end')
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: needle(*)
      integer(c_int), value :: length
      integer(c_int) :: c_capture_end
    end function
    function c_allowed_cpu(n) bind(c, name='fcorpus_allowed_cpu')
      import :: c_int
      integer(c_int), value :: n
      integer(c_int) :: c_allowed_cpu
    end function
  end interface

  ! Either integer kind on either side: omp_lib's results are integer(4),
  ! a default integer is 8 bytes under -fdefault-integer-8.
  interface check_eq
    module procedure check_eq4, check_eq8, check_eq48, check_eq84
  end interface

  ! omp_lib's LOGICAL results are 4 bytes, a default LOGICAL is 8 under
  ! -fdefault-integer-8.
  interface check
    module procedure check4, check8
  end interface

  interface corpus_seed
    module procedure seed44, seed48, seed84, seed88
  end interface

contains

  subroutine corpus_begin(name)
    character(len=*), intent(in) :: name
    call c_begin(name, int(len(name), c_int))
  end subroutine

  subroutine fail(what)
    character(len=*), intent(in) :: what
    call c_fail(what, int(len(what), c_int))
  end subroutine

  subroutine check4(condition, what)
    logical(4), intent(in) :: condition
    character(len=*), intent(in) :: what
    if (.not. condition) call fail(what)
  end subroutine

  subroutine check8(condition, what)
    logical(8), intent(in) :: condition
    character(len=*), intent(in) :: what
    if (.not. condition) call fail(what)
  end subroutine

  subroutine check_eq4(got, want, what)
    integer(4), intent(in) :: got, want
    character(len=*), intent(in) :: what
    if (got /= want) call fail(what // ': expected ' // str(int(want, 8)) // ', got ' // str(int(got, 8)))
  end subroutine

  subroutine check_eq8(got, want, what)
    integer(8), intent(in) :: got, want
    character(len=*), intent(in) :: what
    if (got /= want) call fail(what // ': expected ' // str(want) // ', got ' // str(got))
  end subroutine

  subroutine check_eq48(got, want, what)
    integer(4), intent(in) :: got
    integer(8), intent(in) :: want
    character(len=*), intent(in) :: what
    call check_eq8(int(got, 8), want, what)
  end subroutine

  subroutine check_eq84(got, want, what)
    integer(8), intent(in) :: got
    integer(4), intent(in) :: want
    character(len=*), intent(in) :: what
    call check_eq8(got, int(want, 8), what)
  end subroutine

  ! |got - want| <= tolerance * max(1, |want|)
  subroutine check_near(got, want, tolerance, what)
    real(8), intent(in) :: got, want, tolerance
    character(len=*), intent(in) :: what
    character(len=64) :: g, w
    if (abs(got - want) > tolerance * max(1d0, abs(want))) then
      write (g, '(es24.16)') got
      write (w, '(es24.16)') want
      call fail(what // ': expected ' // trim(adjustl(w)) // ', got ' // trim(adjustl(g)))
    end if
  end subroutine

  ! stdout and stderr into files until capture_end, which says which got
  ! the needle ('' for any text): 1 stdout, 2 stderr, 3 both, 0 neither.
  ! Nothing in between may fail (the message would be captured).
  subroutine capture_begin()
    call c_capture_begin()
  end subroutine

  function capture_end(needle) result(streams)
    character(len=*), intent(in) :: needle
    integer :: streams
    streams = c_capture_end(needle, int(len(needle), c_int))
  end function

  subroutine summary(text)
    character(len=*), intent(in) :: text
    call c_summary(text, int(len(text), c_int))
  end subroutine

  ! An integer as text, without blanks.  Not for a parallel region of a
  ! main program: gfortran 12 keeps the length of a deferred-length result
  ! there in a static variable of the program (slen.N in nm), which the
  ! members then race on (a failure message, made by one member, is fine).
  function str(value) result(text)
    integer(8), intent(in) :: value
    character(len=:), allocatable :: text
    character(len=20) :: digits
    integer(8) :: rest
    integer :: at
    rest = abs(value)
    at = len(digits) + 1
    do
      at = at - 1
      digits(at:at) = achar(iachar('0') + int(mod(rest, 10_8)))
      rest = rest / 10
      if (rest == 0) exit
    end do
    text = digits(at:)
    if (value < 0) text = '-' // text
  end function

  ! A seed for corpus_rand and corpus_delay from two numbers (a thread and
  ! an iteration, say), of either integer kind.
  function seed44(a, b) result(seed)
    integer(8) :: seed
    integer(4), intent(in) :: a, b
    seed = c_seed(int(a, c_int), int(b, c_int))
  end function

  function seed48(a, b) result(seed)
    integer(8) :: seed
    integer(4), intent(in) :: a
    integer(8), intent(in) :: b
    seed = c_seed(int(a, c_int), int(b, c_int))
  end function

  function seed84(a, b) result(seed)
    integer(8) :: seed
    integer(8), intent(in) :: a
    integer(4), intent(in) :: b
    seed = c_seed(int(a, c_int), int(b, c_int))
  end function

  function seed88(a, b) result(seed)
    integer(8) :: seed
    integer(8), intent(in) :: a, b
    seed = c_seed(int(a, c_int), int(b, c_int))
  end function

  ! A pseudo-random number >= 0 from the per-thread state.
  function corpus_rand(state) result(r)
    integer(8) :: r
    integer(8), intent(inout) :: state
    r = c_rand(state)
  end function

  ! A random delay: usually a short spin, now and then a sleep of up to
  ! max_us microseconds (0: spins only).
  subroutine corpus_delay(state, max_us)
    integer(8), intent(inout) :: state
    integer, intent(in) :: max_us
    call c_delay(state, int(max_us, c_int))
  end subroutine

  subroutine reexec_with(name, value)
    character(len=*), intent(in) :: name, value
    call c_reexec_with(name, int(len(name), c_int), value, int(len(value), c_int))
  end subroutine

  ! The runtime's entry point `name` at symbol version `version` ('': the
  ! default), or a null pointer when it has none.
  function runtime_entry(name, version) result(entry)
    character(len=*), intent(in) :: name, version
    type(c_funptr) :: entry
    entry = transfer(c_entry(name, int(len(name), c_int), version, int(len(version), c_int)), entry)
  end function

  ! The n-th CPU (from 0) this process may run on, or -1.
  function allowed_cpu(n) result(cpu)
    integer, intent(in) :: n
    integer :: cpu
    cpu = c_allowed_cpu(int(n, c_int))
  end function

  ! The team size parallel regions get by default.
  function corpus_threads() result(t)
    use omp_lib, only: omp_get_max_threads
    integer :: t
    t = omp_get_max_threads()
    if (t < 1) call fail('omp_get_max_threads() < 1')
  end function

end module fcorpus
