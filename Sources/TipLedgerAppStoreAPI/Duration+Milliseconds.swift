// SPDX-License-Identifier: GPL-3.0-or-later

extension Duration {
    /// The span in milliseconds, fractions kept: the unit of Apple's times and of libcurl's
    /// timeouts.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
