// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCrypto

/// Asks whether a certificate of a validated chain is revoked: the online part of verification,
/// injected into the verifier (`OnlineChecks`) so that the core does no network I/O itself.
///
/// Implementations are shared by every thread verifying; `counts` says what they did, for
/// metrics.
public protocol RevocationChecker: Sendable {
    /// The status of `certificate`, signed by `issuer`, both of `chain`, as known at `date`.
    func status(
        of certificate: Certificate, issuedBy issuer: Certificate, in chain: ValidatedChain, at date: AppleDate
    ) -> RevocationStatus

    /// What the checker did so far.
    var counts: RevocationCounts { get }
}

/// A certificate's revocation status as a `RevocationChecker` found it.
public enum RevocationStatus: Sendable, Equatable {
    /// Its issuer's responder vouches it is not revoked.
    case good
    /// Its issuer's responder says it is revoked; the text says since when and why.
    case revoked(String)
    /// No trustworthy answer: the responder cannot be reached, declines, or answers with a
    /// response that is forged, stale, replayed or about something else, or the certificate
    /// names no responder; the text says which.
    case unavailable(String)
}

/// Counters of a `RevocationChecker`, each since it was made.
public struct RevocationCounts: Sendable, Equatable {
    /// Requests sent to responders.
    public var requests = 0
    /// Statuses answered from kept responses, without a request.
    public var cacheHits = 0
    /// Statuses answered by a request another verification had out, without one of their own.
    public var sharedAnswers = 0
    /// Statuses without a trustworthy answer (`RevocationStatus.unavailable`).
    public var unavailable = 0
    /// Statuses found revoked.
    public var revoked = 0

    public init() {}
}
