/* The runtime mutex's hand-over (src/omp/mutex.h, src/omp/mutex.c), checked
 * with spin.
 *
 * One word, three states: UNLOCKED 0, LOCKED 1, CONTENDED 2 (held, and a
 * waiter is or may be asleep on the futex).  Each locker below runs the C
 * code's steps, one shared access per step:
 *   muster_omp_mutex_trylock      the CAS UNLOCKED -> LOCKED
 *   muster_omp_mutex_lock_slow    spin_then_take, then sleep_until_taken
 *   spin_then_take                a load per poll: CONTENDED stops the spin,
 *                                 UNLOCKED tries the CAS; the budget (0 on
 *                                 one CPU, under the passive policy or with
 *                                 sleepers crowding) is any number of polls
 *   sleep_until_taken             exchange in CONTENDED (UNLOCKED before:
 *                                 taken); else futex_wait(word, CONTENDED)
 *                                 and exchange CONTENDED again, until the
 *                                 exchange returns UNLOCKED
 *   muster_omp_mutex_unlock       exchange in UNLOCKED; CONTENDED before:
 *   muster_omp_mutex_wake_one     futex_wake(word, 1)
 * The futex is modelled as the kernel does it: futex_wait's value check and
 * going to sleep are one atomic step, and futex_wake(1) releases one
 * sleeper (any one) or none when none sleeps.
 *
 * Abstracted: the statistics and the head count of sleepers (they order
 * nothing and only tune the spin budget, which is nondeterministic here);
 * EINTR and spurious wake-ups (they would only add wake-ups, and would hide
 * a lost one); the critical section's data.  The protocol relies only on
 * the total order of read-modify-writes of one word, which C11 gives at any
 * memory order, and on acquire/release for the data, so a sequentially
 * consistent model is faithful.
 *
 * Proved, for 3 lockers taking the lock twice each: mutual exclusion (the
 * assert), and no lost wake-up: every locker gets the lock and finishes
 * (spin reports a locker left asleep as an "invalid end state").
 *
 * Deliberately broken variants, each of which the check must catch:
 *   -DBUG_UNLOCK_NO_WAKE   unlock ignores CONTENDED and wakes nobody
 *   -DBUG_RETAKE_LOCKED    a woken sleeper takes the lock as LOCKED, which
 *                          forgets the sleepers still queued (needs 3)
 *   -DBUG_SPIN_STORE_TAKE  a spinner that saw UNLOCKED takes the lock with a
 *                          plain store instead of the CAS (two holders) */

#define LOCKERS 3
#define ROUNDS 2
#define UNLOCKED 0
#define LOCKED 1
#define CONTENDED 2

byte word = UNLOCKED;
bool asleep[LOCKERS];
byte holders = 0;   /* ghost: lockers inside the critical section */

/* muster_futex_wait(word, expected): sleeps only while the word holds it. */
inline futex_wait(expected) {
    atomic {
        if
        :: word == expected -> asleep[me] = true
        :: else -> skip
        fi
    }
    (!asleep[me])
}

/* muster_futex_wake(word, 1): one sleeper, whichever the kernel picks. */
inline futex_wake_one() {
    atomic {
        if
        :: asleep[0] -> asleep[0] = false
        :: asleep[1] -> asleep[1] = false
        :: asleep[2] -> asleep[2] = false
        :: else -> skip
        fi
    }
}

/* The CAS UNLOCKED -> LOCKED of muster_omp_mutex_trylock; old: what it read. */
inline trylock() {
    atomic {
        old = word;
        if
        :: word == UNLOCKED -> word = LOCKED
        :: else -> skip
        fi
    }
}

/* atomic_exchange(word, CONTENDED) of sleep_until_taken. */
inline exchange_contended() {
    atomic { old = word; word = CONTENDED }
}

proctype locker(byte me) {
    byte old, round = 0;
    bool taken;
    do
    :: round == ROUNDS -> break
    :: else ->
       /* muster_omp_mutex_lock */
       trylock();
       taken = (old == UNLOCKED);
       /* muster_omp_mutex_lock_slow: spin_then_take */
       do
       :: taken -> break
       :: !taken -> break                  /* the spin budget is spent */
       :: !taken ->
          old = word;                      /* the relaxed poll */
          if
          :: old == CONTENDED -> break
          :: old == UNLOCKED ->
#ifdef BUG_SPIN_STORE_TAKE
             word = LOCKED; taken = true
#else
             trylock(); taken = (old == UNLOCKED)
#endif
          :: else -> skip
          fi
       od;
       /* sleep_until_taken */
       if
       :: !taken ->
          exchange_contended();
          do
          :: old == UNLOCKED -> break
          :: else ->
             futex_wait(CONTENDED);
#ifdef BUG_RETAKE_LOCKED
             atomic { old = word; word = LOCKED }
#else
             exchange_contended()
#endif
          od
       :: else -> skip
       fi;

       holders++;
       assert(holders == 1);
       holders--;

       /* muster_omp_mutex_unlock */
       atomic { old = word; word = UNLOCKED }
#ifndef BUG_UNLOCK_NO_WAKE
       ;
       if
       :: old == CONTENDED -> futex_wake_one()   /* muster_omp_mutex_wake_one */
       :: else -> skip
       fi
#endif
       ;
       round++
    od
}

init {
    atomic {
        run locker(0);
        run locker(1);
        run locker(2);
    }
}
