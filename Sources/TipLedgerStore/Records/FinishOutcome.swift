// SPDX-License-Identifier: GPL-3.0-or-later

/// What finishing one transaction id did.
public enum FinishOutcome: String, Sendable {
    case finished
    case alreadyFinished = "already_finished"
    case notFound = "not_found"
}
