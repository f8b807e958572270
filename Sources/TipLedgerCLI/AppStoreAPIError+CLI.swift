// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerAppStoreAPI

extension AppStoreAPIError {
    /// The error line, hint and exit status the command line reports a failed call with: 64 for
    /// what the operator fixes in the settings (credentials, the URL or CA, Apple's 401, an id
    /// Apple would refuse), 1 when Apple refused what was asked (a 4xx such as an unknown
    /// transaction or order), 69 when Apple could not be reached or failed to answer (which may
    /// pass: run the command again). The message names Apple's error (`TransactionIdNotFoundError
    /// (4040010): ...`) when Apple sent one.
    var cliError: CLIError {
        let status: ExitStatus
        switch code {
        case .invalidCredentials, .invalidConfiguration, .unauthorized, .invalidRequest: status = .usage
        case .appleError where isRefusal: status = .rejected
        default: status = .unavailable
        }
        return CLIError(status, message, hint: hint ?? (status == .unavailable ? Self.retryHint : nil))
    }

    /// Whether Apple refused what was asked (a 4xx), so that asking again unchanged cannot help:
    /// not one of the errors Apple says to retry (`AccountNotFoundRetryableError`, ...), which
    /// may still come after the last attempt and mean only "not now".
    var isRefusal: Bool { code == .appleError && (400..<500).contains(status ?? 0) && !isRetryable }

    /// Whether Apple answered that it knows no such transaction, order or customer here (404):
    /// in another environment it may.
    var isNotFound: Bool { isRefusal && status == 404 }

    static let retryHint = "nothing was lost: run the command again later; a sweep resumes where it stopped"
}
