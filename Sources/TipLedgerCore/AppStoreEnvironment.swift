// SPDX-License-Identifier: GPL-3.0-or-later

/// The server environment a payload was signed for.
///
/// See https://developer.apple.com/documentation/appstoreserverapi/environment
public enum AppStoreEnvironment: String, Sendable, CaseIterable, Hashable, Comparable {
    case production = "Production"
    case sandbox = "Sandbox"
    /// StoreKit testing in Xcode, signed by a local self-signed certificate.
    case xcode = "Xcode"
    /// Apple's name for local StoreKit testing; tipledger treats it exactly like `xcode`.
    case localTesting = "LocalTesting"

    /// Whether payloads of this environment are signed locally rather than by the App Store.
    public var isLocalTesting: Bool { self == .xcode || self == .localTesting }

    /// Parses a comma-separated list such as `Production,Sandbox`, case-insensitively.
    /// Returns nil when any element is not an environment or the list is empty.
    public static func parseList(_ text: String) -> Set<AppStoreEnvironment>? {
        var result: Set<AppStoreEnvironment> = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(in: " ")
            guard let environment = allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
                return nil
            }
            result.insert(environment)
        }
        return result.isEmpty ? nil : result
    }

    /// The environments a query for `environments` covers, sorted: Xcode and LocalTesting go
    /// together, as verification accepts either under either name.
    public static func queryScope(_ environments: Set<AppStoreEnvironment>) -> [AppStoreEnvironment] {
        var scope = environments
        if scope.contains(where: \.isLocalTesting) { scope.formUnion([.xcode, .localTesting]) }
        return scope.sorted()
    }

    public static func < (lhs: AppStoreEnvironment, rhs: AppStoreEnvironment) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

extension StringProtocol {
    /// The text without leading and trailing `character`s.
    func trimmingCharacters(in character: Character) -> String {
        var slice = self[...]
        while slice.first == character { slice = slice.dropFirst() }
        while slice.last == character { slice = slice.dropLast() }
        return String(slice)
    }
}
