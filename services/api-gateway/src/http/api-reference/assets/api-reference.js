// Renders the API reference with Swagger UI from the gateway's own OpenAPI document. It is a file, not an inline
// script, because the page's Content-Security-Policy runs same-origin scripts only.
(function () {
  var root = document.getElementById('api-reference');
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
  });
})();
