/* The ordered turn's doorbells (src/omp/loop.c: sleep_for_turn,
 * ring_for_turn, pass_turn), checked with spin.
 *
 * A loop of 6 chunks, schedule(static,1), on 3 members: member m holds
 * chunks m and m + 3, in that order.  The turn counter says whose turn it
 * is.  A member waiting for chunk S's turn either sees it while polling, or
 * sleeps on a bell of its own:
 *   sleep_for_turn   asleep_for := S; sleepers++; ring[S mod 4] := m (the
 *                    three seq_cst); then loop: b := bell (acquire); if the
 *                    turn reached S, leave; else futex_wait(bell, b); on
 *                    leaving clear asleep_for, the entry and the count
 *   pass_turn        turn := S + 1 (seq_cst exchange); ring_for_turn for
 *                    S + 1, then for S + 2 (ahead): if sleepers > 0,
 *                    p := ring[chunk mod 4]; if p waits for that chunk,
 *                    bump p's bell (muster_flag_bump: the value moves, and
 *                    a sleeper on it wakes, to find it early and sleep on)
 * The bell's own sleep handshake (SLEEPING, the CAS and the exchange) is
 * the wait layer's, proved by handshake.pml; here a bump moves the value
 * and wakes whoever sleeps on it, and futex_wait's check and sleep are one
 * step.  The ring has 4 entries for 3 members: a member holds one chunk at
 * a time, so two sleepers never share an entry.  The handshake's accesses
 * are seq_cst (and the bell's load an acquire ahead of the turn's), so a
 * sequentially consistent model is faithful.
 *
 * Proved: the ordered regions run in chunk order (the assert) and no
 * member is left asleep (spin's "invalid end state").
 *
 * Deliberately broken variants, each of which the check must catch:
 *   -DBUG_NO_RING             the pass rings only ahead, not the next turn
 *   -DBUG_UNCOUNTED           the sleeper registers in the ring without
 *                             counting itself among the sleepers
 *   -DBUG_BELL_AFTER_CHECK    the sleeper reads its bell after checking the
 *                             turn (a ring in between is lost) */

#define MEMBERS 3
#define CHUNKS 6
#define RING 4
#define NONE 255

byte turn = 0;
byte sleepers = 0;
byte ring[RING];                 /* member id + 1; 0: nobody */
byte asleep_for[MEMBERS];
byte bell[MEMBERS];
bool asleep[MEMBERS];

inline register() {
    asleep_for[me] = s;
#ifndef BUG_UNCOUNTED
    sleepers++;
#endif
    ring[s % RING] = me + 1
}

/* ring_for_turn(chunk t) */
inline ring_for(t) {
    if
    :: sleepers > 0 ->
       p = ring[(t) % RING];
       if
       :: p != 0 && asleep_for[p - 1] == t ->
          atomic { bell[p - 1] = bell[p - 1] + 1; asleep[p - 1] = false }
       :: else -> skip
       fi
    :: else -> skip
    fi;
    p = 0
}

proctype member(byte me) {
    byte s = me, b, p;
    asleep_for[me] = NONE;
    do
    :: s >= CHUNKS -> break
    :: else ->
       /* wait_for_turn */
       if
       :: turn >= s -> skip            /* seen while polling */
       :: true ->                      /* the budget is spent: sleep_for_turn */
          register();
          do
          :: true ->
#ifdef BUG_BELL_AFTER_CHECK
             if
             :: turn >= s -> break
             :: else -> skip
             fi;
             b = bell[me];
#else
             b = bell[me];
             if
             :: turn >= s -> break
             :: else -> skip
             fi;
#endif
             atomic { if :: bell[me] == b -> asleep[me] = true :: else -> skip fi }
             (!asleep[me])
          od;
          asleep_for[me] = NONE;
          ring[s % RING] = 0;
#ifndef BUG_UNCOUNTED
          sleepers--
#else
          skip
#endif
       fi;
       assert(turn == s);              /* the ordered region: its turn exactly */
       /* pass_turn */
       turn = s + 1;
#ifndef BUG_NO_RING
       ring_for(s + 1);
#endif
       ring_for(s + 2);                /* ahead */
       p = 0; b = 0;
       s = s + MEMBERS
    od
}

init {
    atomic {
        run member(0);
        run member(1);
        run member(2);
    }
}
