/* The runtime mutex, a queue lock with barging (src/omp/mutex.h,
 * src/omp/mutex.c), checked with spin.
 *
 * One word: LOCKED (1), SLEEPERS (2) and the tail, the id of the last
 * queued waiter's node (ids 1..3 here), shifted by 2.  Each node: its
 * state (WAITING, HEAD, PARKED) and the id of its successor (0 until the
 * successor links itself).  Each locker runs the C code's steps, one
 * shared access per step, and at each contended lock takes either way
 * (queue_pays() depends on team size and sleepers, so both ways meet on
 * one mutex):
 *   muster_omp_mutex_lock        the CAS 0 -> LOCKED
 *   lock_on_word                 (not queueing) CAS the word LOCKED when it
 *                                is unlocked; polls (any number) while it
 *                                is held and SLEEPERS is clear; then
 *                                sleep_until_unlocked, and from then on
 *                                take it with SLEEPERS set
 *   sleep_until_unlocked         while held: CAS in SLEEPERS (unless set),
 *                                futex_wait(word, word | SLEEPERS)
 *   spin_while_nobody_queues     a load per poll; unlocked: CAS it LOCKED;
 *                                a tail, or the budget, stops the spin
 *   queue_or_take                reset the node first; CAS loop: unlocked,
 *                                take it (barge); else swap itself in as the
 *                                tail (keeping LOCKED and SLEEPERS); with a
 *                                predecessor: link into it, wait_to_be_head
 *   wait_to_be_head              polls its state for HEAD (any number),
 *                                then CAS WAITING -> PARKED and
 *                                futex_wait(state, PARKED) until HEAD
 *   take_as_head                 polls, or sleep_until_unlocked, then CAS
 *                                taken_word: alone (the tail is its id)
 *                                the tail cleared, else kept; SLEEPERS kept,
 *                                or set if it slept; not alone:
 *                                promote_successor
 *   promote_successor            waits for its successor's link, exchanges
 *                                the successor's state to HEAD; PARKED
 *                                before: futex_wake(state, 1)
 *   muster_omp_mutex_unlock      CAS LOCKED -> 0; else fetch_sub(LOCKED) and,
 *                                SLEEPERS before: fetch_and(~SLEEPERS),
 *                                futex_wake(word, 1)
 * The futex is modelled as the kernel does it: futex_wait's value check and
 * going to sleep are one atomic step; futex_wake(1) releases one sleeper on
 * that address (any one), or none.
 *
 * Abstracted: statistics and the sleepers' head count (they only tune the
 * spin budgets and the choice of way, which are nondeterministic here);
 * EINTR and spurious wake-ups (they would only add wake-ups, and would hide
 * a lost one); the yield in promote_successor's wait (a wait all the
 * same); the critical section's data.  A sequentially consistent model is
 * faithful for the word (every access to it is an atomic of one location,
 * ordered by its modification order) and for the node states (their CAS
 * and exchange likewise); the data the queue hands over (the node resets,
 * the links) is ordered by the acq_rel tail CAS and the release link store
 * with their acquire loads, as mutex.c says.
 *
 * Proved, for 3 lockers taking the lock twice each: mutual exclusion (the
 * assert), and no lost wake-up: every locker gets the lock and finishes
 * (spin reports a locker left waiting as an "invalid end state").
 *
 * Deliberately broken variants, each of which the check must catch:
 *   -DBUG_UNLOCK_NO_WAKE        unlock ignores SLEEPERS and wakes nobody
 *   -DBUG_PROMOTE_NO_WAKE       the new holder makes a parked successor the
 *                               head without waking it
 *   -DBUG_ALONE_KEEPS_TAIL      a head alone in the queue takes the lock
 *                               keeping its id as the tail: the next locker
 *                               links into a node nobody will promote
 *   -DBUG_SLEEP_UNANNOUNCED     a sleeper sleeps on the word without setting
 *                               SLEEPERS
 *   -DBUG_SLEEPER_RETAKES_PLAIN a woken sleeper takes the lock without
 *                               setting SLEEPERS again, forgetting the
 *                               sleepers still there (the unlock that woke
 *                               it cleared the bit)
 *   -DBUG_BARGE_STORE           a barging locker that saw the word unlocked
 *                               takes it with a plain store, not the CAS */

#define LOCKERS 3
#define ROUNDS 2
#define LOCKED 1
#define SLEEPERS 2
#define SHIFT 2
#define WAITING 0
#define HEAD 1
#define PARKED 2

byte word = 0;
byte nstate[LOCKERS + 1];     /* by id, 1..LOCKERS */
byte nnext[LOCKERS + 1];
bool asleep_word[LOCKERS + 1];
bool asleep_node[LOCKERS + 1];
byte holders = 0;             /* ghost: lockers inside the critical section */

/* muster_futex_wait(&word, expected) */
inline futex_wait_word(expected) {
    atomic {
        if
        :: word == expected -> asleep_word[id] = true
        :: else -> skip
        fi
    }
    (!asleep_word[id])
}

/* muster_futex_wake(&word, 1): one sleeper, whichever the kernel picks. */
inline futex_wake_word() {
    atomic {
        if
        :: asleep_word[1] -> asleep_word[1] = false
        :: asleep_word[2] -> asleep_word[2] = false
        :: asleep_word[3] -> asleep_word[3] = false
        :: else -> skip
        fi
    }
}

/* muster_futex_wait(&node->state, PARKED) on the locker's own node */
inline futex_wait_node() {
    atomic {
        if
        :: nstate[id] == PARKED -> asleep_node[id] = true
        :: else -> skip
        fi
    }
    (!asleep_node[id])
}

/* A CAS of the word from w to v: done says whether it took; on failure w
 * is what the word held (as C11's compare_exchange writes it back). */
inline cas_word(v) {
    atomic {
        if
        :: word == w -> word = v; done = true
        :: else -> w = word; done = false
        fi
    }
}

/* sleep_until_unlocked: sleeps on the word, announced by SLEEPERS, until
 * the word is seen unlocked (in w). */
inline sleep_until_unlocked() {
    do
    :: (w & LOCKED) == 0 -> break
    :: (w & LOCKED) != 0 ->
#ifdef BUG_SLEEP_UNANNOUNCED
       v = w;
       done = true;
#else
       v = w | SLEEPERS;
       if
       :: w == v -> done = true
       :: else -> cas_word(v)
       fi;
#endif
       if
       :: done -> futex_wait_word(v); w = word
       :: else -> skip
       fi
    od
}

/* taken_word(w, empties_queue, slept) into v */
inline taken_word(empties) {
    if
    :: empties -> v = (w & SLEEPERS) | LOCKED
    :: else -> v = w | LOCKED
    fi;
#ifndef BUG_SLEEPER_RETAKES_PLAIN
    if
    :: slept -> v = v | SLEEPERS
    :: else -> skip
    fi
#endif
}

proctype locker(byte id) {
    byte w, v, prev, next, old, round = 0;
    bool done, taken, alone, parked, slept;
    do
    :: round == ROUNDS -> break
    :: else ->
       slept = false;
       /* muster_omp_mutex_lock: the CAS 0 -> LOCKED */
       w = 0;
       cas_word(LOCKED);
       taken = done;
       if
       :: taken -> skip
       :: !taken ->
          /* queue_pays() false: lock_on_word */
          w = word;
          do
          :: (w & LOCKED) == 0 ->
             taken_word(false);
             cas_word(v);
             if
             :: done -> break
             :: else -> skip
             fi
          :: (w & LOCKED) != 0 && !slept && (w & SLEEPERS) == 0 -> w = word   /* a poll */
          :: (w & LOCKED) != 0 -> slept = true; sleep_until_unlocked()
          od;
          taken = true
       :: !taken ->
          /* queue_pays(): spin_while_nobody_queues */
          w = word;
          do
          :: taken -> break
          :: !taken && (w & LOCKED) == 0 ->
#ifdef BUG_BARGE_STORE
             word = w | LOCKED; taken = true
#else
             cas_word(w | LOCKED); taken = done
#endif
          :: !taken && (w & LOCKED) != 0 && (w >> SHIFT) != 0 -> break   /* a queue */
          :: !taken && (w & LOCKED) != 0 -> break                         /* the budget is spent */
          :: !taken && (w & LOCKED) != 0 -> w = word                      /* another poll */
          od;
          if
          :: !taken ->
             /* reset the node, then queue_or_take */
             nnext[id] = 0;
             nstate[id] = WAITING;
             do
             :: (w & LOCKED) == 0 ->
                cas_word(w | LOCKED);
                if
                :: done -> taken = true; break
                :: else -> skip
                fi
             :: (w & LOCKED) != 0 ->
                cas_word((w & (LOCKED | SLEEPERS)) | (id << SHIFT));
                if
                :: done -> break
                :: else -> skip
                fi
             od
          :: else -> skip
          fi;
          if
          :: !taken ->
             prev = w >> SHIFT;
             if
             :: prev != 0 ->
                nnext[prev] = id;
                /* wait_to_be_head: polls, then park */
                do
                :: nstate[id] == HEAD -> break
                :: true -> break
                od;
                atomic {
                    if
                    :: nstate[id] == WAITING -> nstate[id] = PARKED; parked = true
                    :: else -> parked = false
                    fi
                }
                if
                :: parked ->
                   do
                   :: nstate[id] == HEAD -> break
                   :: else -> futex_wait_node()
                   od
                :: else -> skip
                fi
             :: else -> skip
             fi;
             /* take_as_head */
             w = word;
             do
             :: true ->
                /* wait_for_unlocked: polls, then sleeps */
                do
                :: (w & LOCKED) == 0 -> break
                :: (w & LOCKED) != 0 -> w = word
                :: (w & LOCKED) != 0 -> slept = true; sleep_until_unlocked(); break
                od;
                alone = ((w >> SHIFT) == id);
#ifdef BUG_ALONE_KEEPS_TAIL
                taken_word(false);
#else
                taken_word(alone);
#endif
                cas_word(v);
                if
                :: done -> break
                :: else -> skip
                fi
             od;
             if
             :: !alone ->
                /* promote_successor */
                (nnext[id] != 0);
                next = nnext[id];
                atomic { old = nstate[next]; nstate[next] = HEAD }
#ifndef BUG_PROMOTE_NO_WAKE
                ;
                if
                :: old == PARKED -> asleep_node[next] = false   /* futex_wake(state, 1) */
                :: else -> skip
                fi
#endif
             :: else -> skip
             fi
          :: else -> skip
          fi
       fi;

       /* dead values forgotten: fewer states, the same behaviour */
       prev = 0; next = 0; old = 0; v = 0; parked = false; alone = false;

       holders++;
       assert(holders == 1);
       holders--;

       /* muster_omp_mutex_unlock */
       w = LOCKED;
       cas_word(0);
       if
       :: !done ->
          atomic { w = word; word = word - LOCKED }
          if
          :: (w & SLEEPERS) != 0 ->
             atomic { word = word & (255 - SLEEPERS) }
#ifndef BUG_UNLOCK_NO_WAKE
             ;
             futex_wake_word()
#endif
          :: else -> skip
          fi
       :: else -> skip
       fi;
       w = 0; done = false; taken = false; slept = false;
       round++
    od
}

init {
    atomic {
        run locker(1);
        run locker(2);
        run locker(3);
    }
}
