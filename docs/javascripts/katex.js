// Render the formulas pymdownx.arithmatex (generic mode) marks: \( ... \) inline, \[ ... \] displayed.
document.addEventListener("DOMContentLoaded", function () {
  for (const element of document.querySelectorAll(".arithmatex")) {
    renderMathInElement(element, {
      delimiters: [
        { left: "\\(", right: "\\)", display: false },
        { left: "\\[", right: "\\]", display: true },
      ],
      throwOnError: false,
    });
  }
});
