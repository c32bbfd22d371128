// Renders the API reference with Swagger UI from the gateway's own OpenAPI document. It is a file, not an inline
// script, because the page's Content-Security-Policy runs same-origin scripts only.
(function () {
  var root = document.getElementById('api-reference');

  /**
   * Swagger UI resolves an operation's `$ref`s when it is opened. For an OpenAPI 3.1 document it does so with its
   * ApiDOM resolver, which reworks the whole document each time: two to three seconds per operation for ours (about
   * 800 KB), against half a second with its OpenAPI 3.0 resolver (a known upstream issue, swagger-ui #10748). Here both
   * give the same result: every `$ref` of this document points into `#/components` with no keyword beside it, and it
   * has no `allOf` and no example on a parameter or header, where the two would differ (the document's unit tests hold
   * that; its browser test compares both). So the subtree is resolved as 3.0; the page still renders the document as
   * the 3.1 it is (webhooks, null types, `const`).
   */
  function resolveSubtreesAsOpenApi30(system) {
    var resolveSubtree = system.fn.resolveSubtree;
    return {
      fn: {
        resolveSubtree: function (spec, path, options) {
          return resolveSubtree(Object.assign({}, spec, { openapi: '3.0.3' }), path, options);
        },
      },
    };
  }

  SwaggerUIBundle({
    url: root.getAttribute('data-openapi-url'),
    domNode: root,
    deepLinking: true,
    // Never send the document to swagger.io's validator: the page talks to its own origin only.
    validatorUrl: null,
    // "Try it out" only where the page offers it (sandbox): there it calls this gateway with the key entered.
    supportedSubmitMethods:
      root.getAttribute('data-try-it-out') === 'true' ? ['get', 'put', 'post', 'delete', 'patch'] : [],
    displayRequestDuration: true,
    defaultModelsExpandDepth: 0,
    docExpansion: 'list',
    filter: true,
    plugins: [resolveSubtreesAsOpenApi30],
  });
})();
