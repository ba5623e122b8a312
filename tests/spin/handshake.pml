/* The wait layer's sleep handshake (src/wait/wait.h), checked with spin.
 *
 * One flag word: counter bits, BROKEN (4) and SLEEPING (8) here.  Waiters
 * wait for the counter to reach 1: they set SLEEPING with a CAS and sleep on
 * the futex while the word still holds that value.  The publisher swaps in 1
 * and wakes only if the old value had SLEEPING.  An aborter may OR in BROKEN
 * and wake sleepers.  The futex is modelled as the kernel does it: the value
 * check and going to sleep are one atomic step; a wake releases every sleeper.
 *
 * Correspondence, one shared access per step:
 *   waiter      sleep_until and prepare_to_sleep (src/wait/wait.c): the
 *               acquire load, check_value, the CAS that announces SLEEPING
 *               (failed: WORD_MOVED, look again), muster_futex_wait(flag, v)
 *   publisher   muster_flag_publish (src/wait/wait.h), may_sleep true: the
 *               exchange; SLEEPING in the old value: muster_flag_wake_sleepers
 *   aborter     muster_flag_break (wait.c): fetch_or BROKEN, then the same
 * Abstracted: the spin phase before the sleep (it only delays the look),
 * deadlines and naps (a timed-out futex_wait would hide a lost wake-up),
 * the statistics counters.
 *
 * Property: no waiter is ever left asleep (spin reports any such state as an
 * "invalid end state"), and each waiter leaves having seen 1 or BROKEN.
 * The protocol relies only on the total order of read-modify-writes of one
 * word, which C11 gives at any memory order, so a sequentially consistent
 * model is faithful.
 *
 * -DBUG_PLAIN_STORE makes the publisher store without looking at SLEEPING:
 * the check must then find a lost wake-up (the test asserts it does), and so
 * must -DBUG_PLAIN_ANNOUNCE, a waiter announcing with a store, not a CAS.
 * -DWITH_ABORT adds the aborter. */

#define WAITERS 2
#define BROKEN 4
#define SLEEPING 8
#define COUNTER 3

byte flag = 0;
bool asleep[WAITERS];

inline futex_wake() {
    atomic {
        byte i = 0;
        do
        :: i < WAITERS -> asleep[i] = false; i++
        :: else -> break
        od
    }
}

proctype waiter(byte me) {
    byte v;
    do
    :: v = flag;
       if
       :: (v & COUNTER) == 1 -> break
       :: (v & BROKEN) != 0 -> break
       :: else ->
          if
          :: (v & SLEEPING) == 0 ->
#ifdef BUG_PLAIN_ANNOUNCE
             /* a plain store may overwrite a value published since the read */
             flag = v | SLEEPING; v = v | SLEEPING
#else
             /* the CAS: announce only if the word has not moved */
             atomic {
                 if
                 :: flag == v -> flag = v | SLEEPING; v = v | SLEEPING
                 :: else -> v = 255   /* CAS failed: skip the sleep, re-read */
                 fi
             }
#endif
          :: else -> skip
          fi;
          /* futex_wait(flag, v): sleep only if the word still holds v */
          atomic {
              if
              :: v != 255 && flag == v -> asleep[me] = true
              :: else -> skip
              fi
          }
          (asleep[me] == false)
       fi
    od;
    assert((flag & COUNTER) == 1 || (flag & BROKEN) != 0)
}

proctype publisher() {
    byte old;
#ifdef BUG_PLAIN_STORE
    flag = 1;
    old = 0;
#else
    atomic { old = flag; flag = 1 }   /* the exchange */
#endif
    if
    :: (old & SLEEPING) != 0 -> futex_wake()
    :: else -> skip
    fi
}

proctype aborter() {
    byte old;
    atomic { old = flag; flag = flag | BROKEN }   /* fetch_or */
    if
    :: (old & SLEEPING) != 0 -> futex_wake()
    :: else -> skip
    fi
}

init {
    atomic {
        run waiter(0);
        run waiter(1);
        run publisher();
#ifdef WITH_ABORT
        run aborter();
#endif
    }
}
