// SPDX-License-Identifier: GPL-3.0-or-later

extension NameValueList where Names == ParameterNames {
    /// The 400 for a parameter the route called `route` does not take among `parameters`, or for
    /// one given twice (which of its values counts is anybody's guess); nil when the query is
    /// fine. A parameter the route does not take is refused rather than ignored, so a misspelt
    /// filter cannot pass for no filter.
    func refusal(takes parameters: Set<String>, route: String) -> HTTPResponse? {
        var seen: Set<String> = []
        for item in self {
            guard parameters.contains(item.name) else {
                let takes = parameters.isEmpty ? "none" : parameters.sorted().joined(separator: ", ")
                return .error(
                    .invalidParameter, "unknown parameter '\(item.name.prefix(40))'; the \(route) route takes \(takes)")
            }
            guard seen.insert(item.name).inserted else {
                return .error(.invalidParameter, "\(item.name) is given more than once")
            }
        }
        return nil
    }
}
