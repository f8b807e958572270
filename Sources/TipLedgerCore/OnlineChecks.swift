// SPDX-License-Identifier: GPL-3.0-or-later

/// Revocation checks online, for a verifier: who asks (`checker`) and what a missing answer
/// means (`mode`). Off unless given, as in Apple's App Store Server Library
/// (`enableOnlineChecks`); see docs/verification.md, "Online revocation checks".
public struct OnlineChecks: Sendable {
    /// What happens when no trustworthy answer comes.
    public enum Mode: String, Sendable, CaseIterable {
        /// The token is rejected (`revocation_unavailable`), as Apple's library rejects it
        /// (`RETRYABLE_VERIFICATION_FAILURE`).
        case strict
        /// The token is verified offline, as if online checks were off, and the miss counted.
        case bestEffort = "best-effort"
    }

    public let mode: Mode
    public let checker: any RevocationChecker

    public init(mode: Mode, checker: any RevocationChecker) {
        self.mode = mode
        self.checker = checker
    }
}
