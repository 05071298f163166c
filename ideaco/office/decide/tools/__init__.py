"""The tools a thought calls, on the think's scratch copy: documents and reviews (`documents`),
requirements and sign-offs (`requirements`), the secretary's organization tools (`org`, within the
caps of `chain`), skills (`skillbook`). Each returns its outcome and the thinks it owes, as values.
"""
