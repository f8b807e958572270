// SPDX-License-Identifier: GPL-3.0-or-later
// ThreadSanitizer annotations for Swift's Synchronization.Mutex on Linux, preloaded by
// scripts/sanitize thread into the tests and every tipledger they start.
//
// Mutex locks and unlocks with an atomic compare-and-exchange, inlined into the caller and so
// seen by ThreadSanitizer; but when a thread finds the mutex held, both the waiting thread's
// lock and the holder's unlock go through the kernel (FUTEX_LOCK_PI / FUTEX_UNLOCK_PI) inside
// libswiftSynchronization.so, which is not instrumented. The hand-over then shows no ordering,
// and every access the mutex protects is reported as a race. These wrappers of the two slow
// paths (and of the slow try-lock) tell ThreadSanitizer what the kernel did: an unlock releases
// the mutex's address, a lock that got it acquires it. Nothing else changes; without
// ThreadSanitizer (the weak symbols are null) they only call through.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>

#define SWIFTCALL __attribute__((swiftcall))
#define SWIFT_SELF __attribute__((swift_context))

void __tsan_acquire(void *address) __attribute__((weak));
void __tsan_release(void *address) __attribute__((weak));

// The mangled names of _MutexHandle._lockSlow(_:), _unlockSlow() and _tryLockSlow(); `self`,
// the handle's address, comes in Swift's self register.
#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"
#define TRY_LOCK_SLOW "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF"

SWIFTCALL void lock_slow(uint32_t thread, SWIFT_SELF void *handle) __asm__(LOCK_SLOW);
SWIFTCALL void unlock_slow(SWIFT_SELF void *handle) __asm__(UNLOCK_SLOW);
SWIFTCALL bool try_lock_slow(SWIFT_SELF void *handle) __asm__(TRY_LOCK_SLOW);

static SWIFTCALL void (*real_lock_slow)(uint32_t, SWIFT_SELF void *);
static SWIFTCALL void (*real_unlock_slow)(SWIFT_SELF void *);
static SWIFTCALL bool (*real_try_lock_slow)(SWIFT_SELF void *);

// Resolved once, before main, from libswiftSynchronization.so (the next definition).
__attribute__((constructor)) static void resolve(void) {
    real_lock_slow = (SWIFTCALL void (*)(uint32_t, SWIFT_SELF void *))dlsym(RTLD_NEXT, LOCK_SLOW);
    real_unlock_slow = (SWIFTCALL void (*)(SWIFT_SELF void *))dlsym(RTLD_NEXT, UNLOCK_SLOW);
    real_try_lock_slow = (SWIFTCALL bool (*)(SWIFT_SELF void *))dlsym(RTLD_NEXT, TRY_LOCK_SLOW);
}

SWIFTCALL void lock_slow(uint32_t thread, SWIFT_SELF void *handle) {
    real_lock_slow(thread, handle);
    if (__tsan_acquire) __tsan_acquire(handle);
}

SWIFTCALL void unlock_slow(SWIFT_SELF void *handle) {
    if (__tsan_release) __tsan_release(handle);
    real_unlock_slow(handle);
}

SWIFTCALL bool try_lock_slow(SWIFT_SELF void *handle) {
    bool locked = real_try_lock_slow(handle);
    if (locked && __tsan_acquire) __tsan_acquire(handle);
    return locked;
}
