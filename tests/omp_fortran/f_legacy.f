! Fixed-form Fortran with omp_lib.h and the C$OMP and *$OMP sentinels, as
! older codes are written: a parallel do with a reduction over a common
! block's array, critical, a lock declared with omp_lib.h's kinds,
! omp_get_thread_num/omp_get_num_threads through the include file, and
! conditional compilation with the !$ sentinel.
      PROGRAM F_LEGACY
      USE FCORPUS
      IMPLICIT NONE
      INCLUDE 'omp_lib.h'
      INTEGER N
      PARAMETER (N = 511)
      DOUBLE PRECISION X(N), TOTAL
      COMMON /WORK/ X, TOTAL
      INTEGER I, T, MEMBERS, CNT
      INTEGER (KIND=OMP_LOCK_KIND) LCK
      CALL CORPUS_BEGIN('f_legacy')
      T = 1
!$    T = OMP_GET_MAX_THREADS()
      DO 10 I = 1, N
         X(I) = DBLE(I)
   10 CONTINUE
      TOTAL = 0.0D0
C$OMP PARALLEL DO REDUCTION(+:TOTAL)
      DO 20 I = 1, N
         TOTAL = TOTAL + X(I)
   20 CONTINUE
C$OMP END PARALLEL DO
      CALL CHECK_NEAR(TOTAL, DBLE(N) * (N + 1) / 2, 0D0,
     &                'a fixed-form reduction over a common block')
      MEMBERS = 0
      CNT = 0
      CALL OMP_INIT_LOCK(LCK)
*$OMP PARALLEL SHARED(MEMBERS, CNT)
*$OMP CRITICAL
      MEMBERS = MEMBERS + 1
*$OMP END CRITICAL
      CALL OMP_SET_LOCK(LCK)
      IF (OMP_GET_NUM_THREADS() .EQ. T) CNT = CNT + 1
      CALL OMP_UNSET_LOCK(LCK)
*$OMP END PARALLEL
      CALL OMP_DESTROY_LOCK(LCK)
      CALL CHECK_EQ(MEMBERS, T, 'members in a fixed-form region')
      CALL CHECK_EQ(CNT, T, 'omp_get_num_threads through omp_lib.h')
      CALL SUMMARY('threads ' // STR(INT(T, 8)) // ' ok')
      END
