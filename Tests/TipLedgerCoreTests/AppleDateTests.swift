// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore

/// Command-line dates (`report --since`, `testkit --purchase-date`) to the millisecond.
@Suite struct AppleDateTests {
    /// 2026-10-31T23:59:59Z.
    let second: Int64 = 1_793_491_199_000

    @Test(arguments: [
        ("2026-10-31T23:59:59Z", 0), ("2026-10-31T23:59:59.5Z", 500), ("2026-10-31T23:59:59.001Z", 1),
        ("2026-10-31T23:59:59.007Z", 7), ("2026-10-31T23:59:59.999Z", 999), ("2026-11-01T01:59:59.123+02:00", 123),
    ])
    func aTimestampParsesToTheExactMillisecond(_ text: String, _ milliseconds: Int64) throws {
        #expect(try #require(AppleDate.parse(text)).wholeMilliseconds == second + milliseconds)
    }

    /// Every millisecond of a second, on two dates: none falls a millisecond short on its way
    /// through Foundation's binary seconds.
    @Test(arguments: ["2026-03-02T00:00:00", "2026-10-31T23:59:59"])
    func everyMillisecondParsesExactly(_ prefix: String) throws {
        let start = try #require(AppleDate.parse(prefix + "Z")).wholeMilliseconds
        var wrong: [Int64] = []
        for milliseconds in Int64(0)..<1000 {
            let digits = String(milliseconds)
            let text = prefix + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
            if AppleDate.parse(text)?.wholeMilliseconds != start + milliseconds { wrong.append(milliseconds) }
        }
        #expect(wrong.isEmpty, "\(wrong.count) wrong, first \(wrong.prefix(5))")
    }

    @Test func aPlainDateIsMidnightUTC() throws {
        #expect(try #require(AppleDate.parse("2026-11-01")).wholeMilliseconds == second + 1000)
    }

    /// The ledger keeps milliseconds: a finer fraction would be cut off without a word.
    @Test(arguments: [
        "2026-10-31T23:59:59.0009Z", "2026-10-31T23:59:59.1234Z", "2026-10-31T23:59:59.Z", "2026-10-31T23:59:59.+00:00",
    ])
    func aFractionFinerThanAMillisecondOrEmptyIsRefused(_ text: String) {
        #expect(AppleDate.parse(text) == nil)
    }
}
