import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'artifacts/**',
      'coverage/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': 'error',
    },
  },
  {
    // Configuration is validated once: every other file gets its settings passed in.
    files: ['services/**/src/**/*.ts', 'packages/**/src/**/*.ts', 'infra/**/src/**/*.ts'],
    ignores: [
      '**/src/config.ts',
      'packages/config/**',
      'packages/testkit/**',
      'packages/testkit-core/**',
      'packages/faultkit/**',
    ],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read the environment only in config.ts.' },
      ],
    },
  },
  {
    // domain/ is pure (.dependency-cruiser.js allows it node:crypto for hashing): randomness is passed in.
    files: ['services/*/src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        ...['crypto', 'node:crypto'].map((name) => ({
          name,
          importNames: [
            'randomBytes',
            'randomFill',
            'randomFillSync',
            'randomInt',
            'randomUUID',
            'getRandomValues',
          ],
          message:
            'domain/ is pure: take the random bytes as a parameter; application/ passes crypto.randomBytes.',
        })),
      ],
    },
  },
  {
    files: ['**/test/**/*.ts', 'scripts/**/*.ts', 'examples/**/*.ts', '**/*.test.ts', '**/bench/**/*.ts'],
    rules: {
      'no-console': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
