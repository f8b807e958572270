// SPDX-License-Identifier: GPL-3.0-or-later
internal import COpenSSL

/// libcrypto's process-wide state.
public enum OpenSSLLibrary {
    /// Initialises libcrypto without its cleanup at exit; call before any other use of it.
    ///
    /// By default OpenSSL frees its state from an `atexit` handler. A process that exits while
    /// worker threads still verify (`verify` stopping because its output went away, with
    /// batches in flight) then had a worker take a lock already freed: a crash in
    /// `pthread_rwlock_rdlock` instead of exit status 74. The memory goes back with the process
    /// anyway.
    public static func initialize() {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }
}
